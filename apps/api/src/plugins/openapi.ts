/** The OpenAPI 3 document, built from the same zod schemas that validate the routes. */
import swagger from "@fastify/swagger";
import { BRAND } from "@flotilla/contracts";
import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform } from "fastify-type-provider-zod";

export async function registerOpenApi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: `${BRAND.name} API`,
        version: "1.0.0",
        description: `The JSON API behind the ${BRAND.name} site, customer portal and desktop app. Errors are { success: false, error, code }.`,
      },
      tags: [
        { name: "Early access", description: "Signup and newsletter" },
        { name: "Sign-in", description: "OpenID Connect sign-in and bearer sessions" },
        { name: "Licensing", description: "What the desktop app calls with its license key" },
        { name: "Customer", description: "The signed-in customer's licenses, devices and usage (bearer token)" },
        { name: "Service", description: "Health and readiness" },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: "http",
            scheme: "bearer",
            description: "The opaque session token returned by the sign-in callback.",
          },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
}
