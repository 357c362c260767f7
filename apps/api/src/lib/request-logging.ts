/**
 * Fastify's per-request log lines ("incoming request", "request completed") at debug instead of info: at a few
 * thousand validations a second they were two JSON lines per request, a good part of the hot path's time. nginx
 * keeps the access log (deploy/nginx.conf.template: status, timings and the request id our lines carry).
 * What still matters at info and above stays there: a request that errored, any 5xx answer (warn), and
 * everything the application logs itself.
 */
import { type FastifyReply, type FastifyRequest, LogController } from "fastify";

export class RequestLogs extends LogController {
  override incomingRequest(request: FastifyRequest) {
    request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(error: Error | null | undefined, _request: FastifyRequest, reply: FastifyReply) {
    if (error) reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, "request errored");
    else if (reply.statusCode >= 500)
      reply.log.warn({ res: reply, responseTime: reply.elapsedTime }, "request completed");
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, "request completed");
  }
}
