/** /api/admin/beta/*: admitting beta testers in waves (issue 36, decision 0062). Admin guard on every route. */
import {
  AdmitResponseSchema,
  AdmitSchema,
  BetaCandidatesSchema,
  BetaInvitationListSchema,
  BetaInvitationResponseSchema,
  BetaWaveListSchema,
  BetaWaveResponseSchema,
  CandidateQuerySchema,
  CreateWaveSchema,
  InvitationParamsSchema,
  WaveParamsSchema,
  WithdrawSchema,
} from "@flotilla/contracts/beta";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { Config } from "../../config";
import { refusals } from "../../plugins/answers";
import { sessionOf } from "../../plugins/auth-guard";
import { type AdminRoles, requireAdmin } from "../admin/roles";
import type { AuthService } from "../auth/service";
import type { Actor } from "../events/record";
import type { BetaAdmin } from "./service";

const ADMIN = {
  401: "UNAUTHENTICATED: no bearer token; INVALID_SESSION: the session is unknown, expired or ended.",
  403: "FORBIDDEN: the signed-in account is not an admin.",
  429: "RATE_LIMITED: too many requests from this address this minute (RATE_LIMIT_PER_MINUTE); retry after Retry-After.",
} as const;
const NO_WAVE = "NOT_FOUND: no wave has this id.";
const NO_INVITATION = "NOT_FOUND: no invitation has this id.";
const NOT_JSON = "MALFORMED_JSON: the body is not JSON.";
const withBody = { body: true } as const;

function adminActor(request: FastifyRequest): Actor {
  const { customer } = sessionOf(request);
  return { type: "admin", id: customer.id, email: customer.email };
}

export function registerBetaRoutes(
  app: FastifyInstance,
  deps: { auth: AuthService; roles: AdminRoles; beta: BetaAdmin; config: Config },
) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { beta } = deps;
  const common = (summary: string, description?: string) => ({
    tags: ["Admin"],
    summary,
    ...(description ? { description } : {}),
    security: [{ bearerAuth: [] }],
  });
  const route = {
    preValidation: requireAdmin(deps.auth, deps.roles),
    config: { rateLimit: { max: deps.config.rateLimits.perMinute, timeWindow: "1 minute" } },
  };

  api.get(
    "/api/admin/beta/waves",
    {
      schema: {
        ...common(
          "Beta waves, newest first, each with its funnel",
          "For each wave: how many people (withdrawn invitations excluded) were admitted, signed in, created a license, activated a first device and ran a first execution, with the first and latest date of each step. Read from the licensing tables, never counted twice.",
        ),
        response: { 200: BetaWaveListSchema, ...refusals(ADMIN) },
      },
      ...route,
    },
    async () => ({ success: true as const, data: await beta.waves() }),
  );

  api.post(
    "/api/admin/beta/waves",
    {
      schema: {
        ...common("Open a wave of beta testers: a name and the day it opens"),
        body: CreateWaveSchema,
        response: {
          200: BetaWaveResponseSchema,
          ...refusals(
            {
              ...ADMIN,
              400: `VALIDATION_ERROR: the name is missing or too long, or the date is not YYYY-MM-DD; ${NOT_JSON}`,
              409: "WAVE_NAME_TAKEN: a wave already has this name (any case).",
            },
            withBody,
          ),
        },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      data: await beta.createWave(request.body, adminActor(request), request.ip),
    }),
  );

  api.get(
    "/api/admin/beta/candidates",
    {
      schema: {
        ...common(
          "Early-access signups to admit, by platform, interest, role, experience and signup date",
          "Newest first, at most `limit`; `uninvited=true` (the default) leaves out signups whose address already holds an invitation.",
        ),
        querystring: CandidateQuerySchema,
        response: {
          200: BetaCandidatesSchema,
          ...refusals({ ...ADMIN, 400: "VALIDATION_ERROR: a filter is too long or a date is not ISO 8601." }),
        },
      },
      ...route,
    },
    async (request) => ({ success: true as const, data: await beta.candidates(request.query) }),
  );

  api.get(
    "/api/admin/beta/waves/:waveId/invitations",
    {
      schema: {
        ...common("A wave's invitations, oldest first"),
        params: WaveParamsSchema,
        response: {
          200: BetaInvitationListSchema,
          ...refusals({ ...ADMIN, 400: "VALIDATION_ERROR: the wave id is not a UUID.", 404: NO_WAVE }),
        },
      },
      ...route,
    },
    async (request) => ({ success: true as const, data: await beta.invitations(request.params.waveId) }),
  );

  api.post(
    "/api/admin/beta/waves/:waveId/admit",
    {
      schema: {
        ...common(
          "Admit signups into a wave: each address gets one invitation mail, ever",
          "Idempotent: a signup whose address already holds an invitation (in this wave or another, withdrawn or not) is counted in `already_invited` and gets no mail; two admins admitting the same signup at once send one. Each invitation is recorded (`beta.invited`) and its mail sent through the outbox.",
        ),
        params: WaveParamsSchema,
        body: AdmitSchema,
        response: {
          200: AdmitResponseSchema,
          ...refusals(
            {
              ...ADMIN,
              400: `VALIDATION_ERROR: the wave id or a signup id is not a UUID, or none or more than 200 are given; ${NOT_JSON}`,
              404: NO_WAVE,
            },
            withBody,
          ),
        },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      data: await beta.admit(request.params.waveId, request.body, adminActor(request), request.ip),
    }),
  );

  api.post(
    "/api/admin/beta/invitations/:invitationId/resend",
    {
      schema: {
        ...common("Send an open invitation's mail again"),
        params: InvitationParamsSchema,
        response: {
          200: BetaInvitationResponseSchema,
          ...refusals(
            {
              ...ADMIN,
              400: `VALIDATION_ERROR: the invitation id is not a UUID; ${NOT_JSON}`,
              404: NO_INVITATION,
              409: "INVITATION_WITHDRAWN: the invitation was withdrawn; INVITATION_ACCEPTED: the person already signed in.",
            },
            // A POST may carry a body even when it needs none: too large is 413 here as anywhere.
            withBody,
          ),
        },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      data: await beta.resend(request.params.invitationId, adminActor(request), request.ip),
    }),
  );

  api.post(
    "/api/admin/beta/invitations/:invitationId/withdraw",
    {
      schema: {
        ...common(
          "Withdraw an invitation: its address is no longer a beta tester",
          "Withdrawing twice changes nothing. A withdrawn invitation is not sent again, and admitting its signup again does not create another.",
        ),
        params: InvitationParamsSchema,
        body: WithdrawSchema,
        response: {
          200: BetaInvitationResponseSchema,
          ...refusals(
            {
              ...ADMIN,
              400: `VALIDATION_ERROR: the invitation id is not a UUID or the reason too long; ${NOT_JSON}`,
              404: NO_INVITATION,
            },
            withBody,
          ),
        },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      data: await beta.withdraw(request.params.invitationId, request.body.reason, adminActor(request), request.ip),
    }),
  );
}
