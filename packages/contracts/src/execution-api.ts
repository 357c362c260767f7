/** Request and answer shapes of execution leases (decision 0048): the desktop API, the customer API, the console. */
import { z } from "zod";
import { EXECUTION_CODES, EXECUTION_END_REASONS, EXECUTION_RULES, EXECUTION_STATUSES } from "./executions";
import { FEATURE_NAME, LicenseKeySchema, MachineIdSchema } from "./licensing";
import { LICENSE_CODES } from "./tiers";

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
  /**
   * Stopped by someone else, it holds its slot until its app has stopped or `expires_at` (decision 0052). Absent from
   * servers older than that: read as false.
   */
  stopping: z.boolean().default(false),
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

/** 410 EXECUTION_ENDED: the problem, and why the lease no longer runs. */
export const ExecutionEndedSchema = z.object({
  success: z.literal(false),
  error: z.string(),
  code: z.literal(EXECUTION_CODES.ended),
  end_reason: z.enum(EXECUTION_END_REASONS),
});

export const EndExecutionAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({
    ended: z.literal(true),
    end_reason: z.enum(EXECUTION_END_REASONS),
    ended_at: z.string(),
  }),
});

/**
 * The owner or an admin stops an execution (decision 0052): `stopping` until its app has stopped (it ends the lease)
 * or its heartbeat window has passed (`holds_slot_until` at the latest); `ended` when it had ended already.
 */
export const StoppedExecutionSchema = z.object({
  status: z.enum(["stopping", "ended"]),
  end_reason: z.enum(EXECUTION_END_REASONS),
  stop_requested_at: z.string().nullable(),
  /** The latest moment its slot is held if its app never answers (its heartbeat window); null once ended. */
  holds_slot_until: z.string().nullable(),
  ended_at: z.string().nullable(),
});
export type StoppedExecution = z.infer<typeof StoppedExecutionSchema>;
export const StopExecutionAnswerSchema = z.object({ success: z.literal(true), data: StoppedExecutionSchema });

/**
 * The desktop's watch (decision 0052): answered at once when one of these executions is no longer running on this
 * machine or the license is no longer in force, else held until that happens or `wait_seconds` pass.
 */
export const WatchExecutionsRequestSchema = z.strictObject({
  license_key: LicenseKeySchema,
  machine_id: MachineIdSchema,
  execution_ids: z.array(z.uuid("execution_ids must be UUIDs")).min(1).max(EXECUTION_RULES.watchedPerRequest),
  /** How long to hold the answer when nothing changes (default and most: EXECUTION_RULES.watchHoldSeconds). */
  wait_seconds: z.number().int().min(0).max(EXECUTION_RULES.watchHoldSeconds).optional(),
});
export type WatchExecutionsRequest = z.input<typeof WatchExecutionsRequestSchema>;

export const WatchedExecutionSchema = z.object({
  id: z.string(),
  /** `unknown`: this machine holds no lease with this id on this license. */
  status: z.enum([...EXECUTION_STATUSES, "unknown"]),
  end_reason: z.enum(EXECUTION_END_REASONS).nullable(),
  /** Why it stopped, in words for the app's user; null while it runs. */
  message: z.string().nullable(),
});
export const WatchExecutionsAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({
    /** VALID while the license is in force for this machine; otherwise why not (SUSPENDED, EXPIRED, NOT_FOUND…). */
    code: z.enum(LICENSE_CODES),
    executions: z.array(WatchedExecutionSchema),
    /** Something the app must act on: an execution not running, or the license not in force. */
    changed: z.boolean(),
  }),
});
export type WatchExecutionsAnswer = z.infer<typeof WatchExecutionsAnswerSchema>["data"];

export const RunningExecutionsAnswerSchema = z.object({
  success: z.literal(true),
  data: z.object({
    limit: z.number().int().nullable(),
    running: z.array(ExecutionHolderSchema.extend({ id: z.string(), feature: z.string(), this_machine: z.boolean() })),
  }),
});

export { type LicenseExecutions, LicenseExecutionsSchema } from "./licensing";
