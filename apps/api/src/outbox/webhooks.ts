/**
 * Sends one webhook: a signed POST, no redirects followed, SSRF rules on every connection, and one deadline for the
 * whole attempt — connecting, the answer's headers and its body. A socket idle timeout alone would let a receiver
 * that trickles a byte now and then hold the outbox round for hours (decision 0037).
 *
 * SSRF (lib/net-guard.ts): the URL is checked again before each attempt (an endpoint registered under looser rules is
 * refused here), the name is resolved inside the socket's own lookup, which refuses a non-public answer, and each
 * attempt opens a connection of its own (`agent: false`): no pooled socket, and no proxy from the environment
 * (`NODE_USE_ENV_PROXY`), whose own DNS would decide where the request goes. A 3xx is an answer like any other
 * non-2xx: its Location is never followed, and the attempt is retried later.
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { BRAND } from "@flotilla/contracts/brand";
import { WEBHOOK_HEADERS } from "@flotilla/contracts/events";
import { guardedLookup, type Resolve, type UrlPolicy, webhookUrlProblem } from "../lib/net-guard";
import { legacySignature, standardSignature } from "./signature";

export interface WebhookAttempt {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface WebhookRequest {
  url: string;
  secrets: string[];
  eventId: string;
  eventType: string;
  body: string;
}

export async function sendWebhook(
  input: WebhookRequest,
  options: { policy: UrlPolicy; timeoutMs: number; now?: () => number; resolve?: Resolve },
): Promise<WebhookAttempt> {
  const started = Date.now();
  const problem = webhookUrlProblem(input.url, options.policy);
  if (problem) return { ok: false, statusCode: null, error: `refused: ${problem}`, durationMs: 0 };
  const url = new URL(input.url);
  const timestamp = Math.floor((options.now?.() ?? Date.now()) / 1000);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<WebhookAttempt>((resolve) => {
    let settled = false;
    /** Known once the answer's headers are in: then it decides, whatever happens to the body. */
    let answered: number | null = null;
    const done = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      const redirect = statusCode !== null && statusCode >= 300 && statusCode < 400;
      resolve({
        ok: statusCode !== null && statusCode >= 200 && statusCode < 300,
        statusCode,
        error: error ?? (redirect ? `HTTP ${statusCode}: redirects are not followed` : null),
        durationMs: Date.now() - started,
      });
    };
    const req = send(
      url,
      {
        method: "POST",
        agent: false,
        lookup: guardedLookup(options.policy, options.resolve) as never,
        headers: {
          "content-type": "application/json",
          "user-agent": `${BRAND.name}-Webhooks/1`,
          [WEBHOOK_HEADERS.id]: input.eventId,
          [WEBHOOK_HEADERS.timestamp]: String(timestamp),
          [WEBHOOK_HEADERS.signature]: standardSignature(input.secrets, input.eventId, timestamp, input.body),
          [WEBHOOK_HEADERS.eventType]: input.eventType,
          [WEBHOOK_HEADERS.legacySignature]: legacySignature(input.secrets, input.body, timestamp),
          [WEBHOOK_HEADERS.legacyEventId]: input.eventId,
          "content-length": Buffer.byteLength(input.body),
        },
      },
      (res) => {
        answered = res.statusCode ?? null;
        // Read (and discard) at most a little of the answer: the status code is what counts.
        let read = 0;
        res.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > 64 * 1024) res.destroy();
        });
        res.on("end", () => done(res.statusCode ?? null, null));
        res.on("error", () => done(res.statusCode ?? null, null));
        res.on("close", () => done(res.statusCode ?? null, null));
      },
    );
    // The whole attempt, not the socket's idle time: the answer's status (and body) within timeoutMs, or it is cut.
    const deadline = setTimeout(
      () => req.destroy(new Error(`timed out after ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      done(answered, answered === null ? error.message.slice(0, 300) : null),
    );
    req.end(input.body);
  });
}
