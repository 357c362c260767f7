/** Request and answer shapes of execution leases (decision 0048): the desktop API, the customer API, the console. */
import { z } from "zod";
import { EXECUTION_CODES, EXECUTION_END_REASONS } from "./executions";
import { FEATURE_NAME, LicenseKeySchema, MachineIdSchema } from "./licensing";

export const StartExecutionRequestSchema = z.strictObject({
  license_key: LicenseKeySchema,
  machine_id: MachineIdSchema,
  /** What runs (counted under this feature in the usage figures when the execution ends). */
  feature: z
    .string()
    .trim()
    .toLowerCase()
    .regex(FEATURE_NAME, "feature must be lower-case words joined by hyphens")
    .optional(),
});
export type StartExecutionRequest = z.input<typeof StartExecutionRequestSchema>;

/** Heartbeat and end name the lease in the path; the body proves who asks. */
export const ExecutionLeaseRequestSchema = z.strictObject({
  license_key: LicenseKeySchema,
  machine_id: MachineIdSchema,
});
export type ExecutionLeaseRequest = z.input<typeof ExecutionLeaseRequestSchema>;
export const ExecutionParamsSchema = z.object({ executionId: z.uuid("executionId must be a UUID") });

export const ExecutionLeaseSchema = z.object({
  id: z.string(),
  feature: z.string(),
  started_at: z.string(),
  /** Send the next heartbeat within this; silent past expires_at, the lease no longer counts. */
  heartbeat_interval_seconds: z.number().int(),
  expires_at: z.string(),
});
export type ExecutionLease = z.infer<typeof ExecutionLeaseSchema>;

export const ExecutionAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({
    execution: ExecutionLeaseSchema,
    /** The license's running executions, this one included. */
    running: z.number().int(),
    /** The tier's limit; null when unlimited (leases are still recorded). */
    limit: z.number().int().nullable(),
    /** A heartbeat brought an expired lease back (within its revival window). */
    revived: z.boolean(),
  }),
});
export type ExecutionAnswer = z.infer<typeof ExecutionAnswerSchema>["data"];

/** A running execution another machine holds, as a refusal names it. */
export const ExecutionHolderSchema = z.object({
  display_id: z.string(),
  machine_name: z.string().nullable(),
  started_at: z.string(),
  expires_at: z.string(),
});
export type ExecutionHolder = z.infer<typeof ExecutionHolderSchema>;

/** 409 EXECUTION_LIMIT: the problem, who holds the running executions, and when the first of them would expire. */
export const ExecutionRefusalSchema = z.object({
  success: z.literal(false),
  error: z.string(),
  code: z.literal(EXECUTION_CODES.limit),
  limit: z.number().int(),
  running: z.array(ExecutionHolderSchema),
  /** If its app stops sending heartbeats, the earliest a slot frees itself (the soonest expiry among the holders). */
  oldest_expires_at: z.string(),
});
export type ExecutionRefusal = z.infer<typeof ExecutionRefusalSchema>;

export const EndExecutionAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({
    ended: z.literal(true),
    end_reason: z.enum(EXECUTION_END_REASONS),
    ended_at: z.string(),
  }),
});

export const RunningExecutionsAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({
    limit: z.number().int().nullable(),
    running: z.array(ExecutionHolderSchema.extend({ id: z.string(), feature: z.string(), this_machine: z.boolean() })),
  }),
});

export { type LicenseExecutions, LicenseExecutionsSchema } from "./licensing";
