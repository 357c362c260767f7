/**
 * refusals() (src/plugins/answers.ts): each declared status carries its meaning into the OpenAPI document, and the
 * failures any operation may give are one `default` that fastify-type-provider-zod serializes like any other answer.
 */
import swagger from "@fastify/swagger";
import Fastify, { type FastifyInstance } from "fastify";
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from "fastify-type-provider-zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { otherFailureStatuses, refusals } from "../src/plugins/answers";
import { HttpProblem, registerErrorHandler } from "../src/plugins/errors";
import { declares } from "./helpers/declared-answers";

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  await app.register(swagger, {
    openapi: { openapi: "3.1.0", info: { title: "t", version: "1" } },
    transform: jsonSchemaTransform,
  });
  app.withTypeProvider<ZodTypeProvider>().post(
    "/things",
    {
      schema: {
        body: z.object({ outcome: z.string() }),
        response: {
          200: z.object({ success: z.literal(true) }),
          ...refusals({ 404: "NOT_FOUND: no such thing", 503: "BUSY: too many things at once" }, { body: true }),
        },
      },
    },
    async (request) => {
      if (request.body.outcome === "missing") throw new HttpProblem(404, "No such thing", "NOT_FOUND");
      if (request.body.outcome === "fault") throw new Error("a bug, with a secret in its message");
      return { success: true as const };
    },
  );
  app.get(
    "/constant",
    { schema: { response: { 200: z.object({ n: z.number() }), ...refusals({}, { database: false }) } } },
    async () => ({ n: 1 }),
  );
  await app.ready();
});
afterAll(() => app.close());

describe("refusals()", () => {
  it("gives each declared status its meaning as the response's description, and `default` the other failures", async () => {
    type Responses = Record<string, { description: string }>;
    const document = app.swagger() as unknown as { paths: Record<string, Record<string, { responses: Responses }>> };
    const responses = document.paths["/things"]!.post!.responses;
    expect(Object.keys(responses)).toEqual(["200", "404", "503", "default"]);
    expect(responses["404"]!.description).toBe("NOT_FOUND: no such thing");
    // Its own 503 keeps the generic meaning, and `default` no longer names 503.
    expect(responses["503"]!.description).toMatch(/^BUSY: too many things at once Or UNAVAILABLE: the database/);
    expect(responses.default!.description).toMatch(/^- 500 INTERNAL_ERROR/);
    expect(responses.default!.description).toContain("413 PAYLOAD_TOO_LARGE");
    expect(responses.default!.description).toContain("415 UNSUPPORTED_MEDIA_TYPE");
    expect(responses.default!.description).not.toContain("503");

    const constant = document.paths["/constant"]!.get!.responses;
    expect(constant.default!.description).toBe(
      "- 500 INTERNAL_ERROR: the service failed; try again.\n- 415 UNSUPPORTED_MEDIA_TYPE: a Content-Encoding the service does not decode (it decodes gzip, deflate and br, and zstd on Node.js 22.15 and later).",
    );
  });

  it("says which statuses its `default` stands for: only the generic ones that apply", () => {
    const { default: withBody } = refusals({ 400: "VALIDATION_ERROR" }, { body: true });
    expect(otherFailureStatuses(withBody)).toEqual([500, 503, 413, 415]);
    expect(otherFailureStatuses(refusals({}).default)).toEqual([500, 503, 415]);
    expect(otherFailureStatuses(refusals({}, { database: false }).default)).toEqual([500, 415]);
    // A `default` made elsewhere stands for nothing.
    expect(otherFailureStatuses(z.object({}))).toEqual([]);
    const response = refusals({ 404: "NOT_FOUND" });
    expect([400, 404, 409, 413, 415, 500, 503].filter((status) => declares(response, status))).toEqual([
      404, 415, 500, 503,
    ]);
  });

  it("answers through the declared schemas: a declared refusal and a 500 through `default`, both the error shape", async () => {
    const missing = await app.inject({ method: "POST", url: "/things", payload: { outcome: "missing" } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ success: false, error: "No such thing", code: "NOT_FOUND" });
    const fault = await app.inject({ method: "POST", url: "/things", payload: { outcome: "fault" } });
    expect(fault.statusCode).toBe(500);
    expect(fault.json()).toEqual({ success: false, error: "Internal server error", code: "INTERNAL_ERROR" });
    const fine = await app.inject({ method: "POST", url: "/things", payload: { outcome: "fine" } });
    expect(fine.json()).toEqual({ success: true });
  });
});
