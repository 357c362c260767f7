/**
 * Admitting beta testers (issue 36, decision 0062): waves, invitations and the funnel, as the admin API
 * (/api/admin/beta/*) takes and answers them, and the console shows them.
 */
import { z } from "zod";
import { isSafeDisplayText, UNSAFE_TEXT_MESSAGE } from "./text";

export const BETA_ERRORS = {
  waveNotFound: "No wave with this id.",
  waveNameTaken: "A wave already has this name.",
  invitationNotFound: "No invitation with this id.",
  invitationWithdrawn: "This invitation was withdrawn: it cannot be resent.",
  invitationAccepted: "This invitation was accepted: the person already signed in.",
} as const;

/** The steps of a wave's funnel, in order, with the words the console shows. */
export const BETA_FUNNEL_STEPS = [
  { key: "admitted", label: "Admitted" },
  { key: "signed_in", label: "Signed in" },
  { key: "license_created", label: "License created" },
  { key: "first_activation", label: "First activation" },
  { key: "first_execution", label: "First execution" },
] as const;
export type BetaFunnelStep = (typeof BETA_FUNNEL_STEPS)[number]["key"];

const uuid = z.uuid();
const isoDay = z.iso.date();

export const CreateWaveSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, "Give the wave a name")
    .max(80, "Must be at most 80 characters")
    .refine(isSafeDisplayText, `Name ${UNSAFE_TEXT_MESSAGE}`),
  /** The day the wave opens (YYYY-MM-DD). */
  date: isoDay,
});
export type CreateWave = z.input<typeof CreateWaveSchema>;

export const WaveParamsSchema = z.object({ waveId: uuid });
export const InvitationParamsSchema = z.object({ invitationId: uuid });

/** Signups to admit, by id (the console's selection): at most 200 at once. */
export const AdmitSchema = z.strictObject({
  signup_ids: z.array(uuid).min(1, "Select at least one signup").max(200, "At most 200 signups at once"),
});

export const WithdrawSchema = z.strictObject({
  reason: z.string().trim().max(200).optional(),
});

const optionalText = z.string().trim().max(200).optional();
const optionalDate = z.iso.datetime({ offset: true }).or(z.iso.date()).optional();

/** Which signups the console offers to admit: the signup filters, and whether to hide those already invited. */
export const CandidateQuerySchema = z.object({
  platform: optionalText,
  interest: optionalText,
  role: optionalText,
  experience: optionalText,
  from: optionalDate,
  to: optionalDate,
  uninvited: z.enum(["true", "false"]).default("true"),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});

export const INVITATION_STATUSES = ["invited", "accepted", "withdrawn"] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

export const BetaCandidateSchema = z.object({
  signup_id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.string(),
  platform: z.string(),
  interests: z.string(),
  created_at: z.string(),
  invitation: z.object({ id: z.string(), wave_id: z.string(), status: z.enum(INVITATION_STATUSES) }).nullable(),
});
export const BetaCandidatesSchema = z.object({ success: z.literal(true), data: z.array(BetaCandidateSchema) });

const step = z.object({ count: z.number().int(), first_at: z.string().nullable(), last_at: z.string().nullable() });

export const BetaWaveSchema = z.object({
  id: z.string(),
  name: z.string(),
  date: z.string(),
  created_at: z.string(),
  withdrawn: z.number().int(),
  /** Counts of people (withdrawn invitations excluded) who reached each step, with the first and latest dates. */
  funnel: z.object({
    admitted: step,
    signed_in: step,
    license_created: step,
    first_activation: step,
    first_execution: step,
  }),
});
export type BetaWave = z.infer<typeof BetaWaveSchema>;
export const BetaWaveListSchema = z.object({ success: z.literal(true), data: z.array(BetaWaveSchema) });
export const BetaWaveResponseSchema = z.object({ success: z.literal(true), data: BetaWaveSchema });

export const BetaInvitationSchema = z.object({
  id: z.string(),
  wave_id: z.string(),
  email: z.string(),
  status: z.enum(INVITATION_STATUSES),
  invited_at: z.string(),
  last_sent_at: z.string(),
  sends: z.number().int(),
  accepted_at: z.string().nullable(),
  withdrawn_at: z.string().nullable(),
});
export type BetaInvitation = z.infer<typeof BetaInvitationSchema>;
export const BetaInvitationListSchema = z.object({ success: z.literal(true), data: z.array(BetaInvitationSchema) });
export const BetaInvitationResponseSchema = z.object({ success: z.literal(true), data: BetaInvitationSchema });

export const AdmitResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    /** Invitations created now (one mail each). */
    admitted: z.number().int(),
    /** Signups that already held an invitation (in this wave or another): nothing sent. */
    already_invited: z.number().int(),
    /** Ids that name no signup. */
    not_found: z.number().int(),
  }),
});
