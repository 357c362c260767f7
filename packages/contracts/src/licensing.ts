/** Request and response shapes of the licensing API (desktop app, CLI) and the customer API. */
import { z } from "zod";
import { EXECUTION_END_REASONS } from "./executions";
import { isSafeDisplayText, UNSAFE_TEXT_MESSAGE } from "./text";
import { LICENSE_CODES } from "./tiers";

/** Keys look like FLOT-XXXXX-XXXXX-XXXXX-XXXXX-XXXXX (Crockford base32, 125 bits). */
export const LicenseKeySchema = z
  .string()
  .trim()
  .min(10, "license_key is required")
  .max(64, "license_key is too long")
  .regex(/^[A-Za-z0-9-]+$/, "license_key has an invalid format");

export const MachineIdSchema = z
  .string()
  .trim()
  .min(1, "machine_id is required")
  .max(128, "machine_id is too long")
  .regex(/^[\x21-\x7e]+$/, "machine_id must be printable ASCII without spaces");

/** Names the dashboard lists: short, and unable to disguise themselves (text.ts). */
const optionalText = (field: string, max: number) =>
  z
    .string()
    .trim()
    .max(max, `${field} is too long`)
    .refine(isSafeDisplayText, `${field} ${UNSAFE_TEXT_MESSAGE}`)
    .optional();

export const ValidateRequestSchema = z.strictObject({
  license_key: LicenseKeySchema,
  machine_id: MachineIdSchema,
  machine_name: optionalText("machine_name", 128),
  platform: optionalText("platform", 64),
  app_version: optionalText("app_version", 32),
});
export type ValidateRequest = z.input<typeof ValidateRequestSchema>;

export const FeaturesSchema = z.object({
  maxConcurrentExecutions: z.number().int().nullable(),
  sharedMemory: z.boolean(),
  backups: z.boolean(),
  embeddingModels: z.boolean(),
});

/** Where a machine stands in its license: active holds a slot; inactive (silent too long) does not. */
export const MACHINE_STATUSES = ["active", "inactive"] as const;

export const ValidateResponseDataSchema = z.object({
  valid: z.boolean(),
  code: z.enum(LICENSE_CODES),
  message: z.string(),
  license: z
    .object({
      tier: z.string(),
      status: z.string(),
      expires_at: z.string().nullable(),
      features: FeaturesSchema,
      max_machines: z.number().int(),
    })
    .nullable(),
  machine: z.object({ display_id: z.string(), is_primary: z.boolean() }).nullable(),
  /** Ed25519-signed JWT for offline checks; present only when valid. */
  token: z.string().nullable(),
  /** When to send the next heartbeat (the license tier's interval); null when not valid. */
  heartbeat_interval_seconds: z.number().int().nullable(),
});
export const LicenseValidateResponseSchema = z.object({ success: z.literal(true), data: ValidateResponseDataSchema });

export const FEATURE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const UsageRequestSchema = z.strictObject({
  license_key: LicenseKeySchema,
  machine_id: MachineIdSchema,
  executions: z.number().int().min(1).max(100_000),
  feature: z
    .string()
    .trim()
    .toLowerCase()
    .regex(FEATURE_NAME, "feature must be lower-case words joined by hyphens")
    .optional(),
});
export type UsageRequest = z.input<typeof UsageRequestSchema>;
export const UsageResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({ recorded: z.number().int(), current_month_executions: z.number().int() }),
});

/** A running app's sign of life: keeps its slot, revives it after a silence, refreshes its offline token. */
export const HeartbeatRequestSchema = z.strictObject({ license_key: LicenseKeySchema, machine_id: MachineIdSchema });
export type HeartbeatRequest = z.input<typeof HeartbeatRequestSchema>;
export const HeartbeatResponseSchema = LicenseValidateResponseSchema;

/** The app frees its own slot. */
export const DeactivateRequestSchema = HeartbeatRequestSchema;
export type DeactivateRequest = z.input<typeof DeactivateRequestSchema>;
export const DeactivateResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    deactivated: z.literal(true),
    /** Deactivations this license may still make in the current 24 hours. */
    deactivations_left: z.number().int(),
  }),
});

/** An encrypted, signed license for a machine that will be offline (files.ts in the SDK reads it). */
export const LicenseFileSchema = z.object({
  format: z.literal("flotilla-license-file/1"),
  /** The signing key's id (also inside, signed). */
  kid: z.string(),
  /** AES-256-GCM under a key derived from the license key and the machine id: base64url parts. */
  iv: z.string(),
  ciphertext: z.string(),
  tag: z.string(),
  /** Not secret, for people and file managers: the signed copies inside are what counts. */
  issued_at: z.string(),
  expires_at: z.string(),
});
export type LicenseFile = z.infer<typeof LicenseFileSchema>;

export const CheckoutRequestSchema = z.strictObject({
  license_key: LicenseKeySchema,
  machine_id: MachineIdSchema,
  /** Seconds; default 30 days, at most 90 (and never past the license's end). */
  ttl_seconds: z
    .number()
    .int()
    .min(3600)
    .max(90 * 24 * 3600)
    .optional(),
});
export type CheckoutRequest = z.input<typeof CheckoutRequestSchema>;
export const CheckoutResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({ license_file: LicenseFileSchema }),
});

/** What an offline machine writes for another computer to carry to the service. */
export const ActivationRequestFileSchema = z.strictObject({
  format: z.literal("flotilla-activation-request/1"),
  license_key: LicenseKeySchema,
  machine_id: MachineIdSchema,
  machine_name: z.string().trim().max(128).refine(isSafeDisplayText, `machine_name ${UNSAFE_TEXT_MESSAGE}`).optional(),
  platform: z.string().trim().max(64).refine(isSafeDisplayText, `platform ${UNSAFE_TEXT_MESSAGE}`).optional(),
  created_at: z.string().max(40),
});
export type ActivationRequestFile = z.infer<typeof ActivationRequestFileSchema>;
export const OfflineActivationRequestSchema = z.strictObject({
  request: ActivationRequestFileSchema,
  ttl_seconds: z
    .number()
    .int()
    .min(3600)
    .max(90 * 24 * 3600)
    .optional(),
});
export const OfflineActivationResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    code: z.enum(LICENSE_CODES),
    message: z.string(),
    /** The response file: present when the machine is activated. */
    license_file: LicenseFileSchema.nullable(),
  }),
});

export const CreateLicenseRequestSchema = z.strictObject({ tier: z.string().trim().min(1).max(16) });

/** A device refused because the license was full: the dashboard tells its owner. */
export const RefusedActivationSchema = z.object({
  machine_id: z.string(),
  display_id: z.string(),
  machine_name: z.string().nullable(),
  platform: z.string().nullable(),
  refused_at: z.string(),
});
export type RefusedActivation = z.infer<typeof RefusedActivationSchema>;

/** What the dashboard shows per license: what runs now, on which device, since when (decision 0048). */
export const LicenseExecutionsSchema = z.object({
  /** The tier's limit of concurrent executions; null when unlimited. */
  limit: z.number().int().nullable(),
  running: z.array(
    z.object({
      id: z.string(),
      machine_id: z.string(),
      display_id: z.string(),
      machine_name: z.string().nullable(),
      feature: z.string(),
      started_at: z.string(),
      last_heartbeat_at: z.string(),
      expires_at: z.string(),
      /** `stopping`: stopped from here or the console; it holds its slot until its app has stopped (decision 0052). */
      status: z.enum(["running", "stopping"]),
      stop_reason: z.enum(EXECUTION_END_REASONS).nullable(),
      stop_requested_at: z.string().nullable(),
    }),
  ),
});
export type LicenseExecutions = z.infer<typeof LicenseExecutionsSchema>;

export const LicenseSchema = z.object({
  id: z.string(),
  license_key: z.string(),
  tier: z.string(),
  status: z.string(),
  machine_id: z.string().nullable(),
  expires_at: z.string().nullable(),
  last_seen: z.string().nullable(),
  max_machines: z.number().int(),
  created_at: z.string(),
  features: FeaturesSchema,
  /** Devices refused because every slot was taken, most recent first (until dismissed or activated). */
  refused_activations: z.array(RefusedActivationSchema),
  /** After a key rotation, until when the previous key still works; null otherwise. */
  previous_key_valid_until: z.string().nullable(),
  /** The owner's consent to license files for offline machines (off by default; decision 0036). */
  offline_files_allowed: z.boolean(),
  /** Executions running now, across the license's devices. */
  executions: LicenseExecutionsSchema,
});
export type License = z.infer<typeof LicenseSchema>;

export const OfflineFilesRequestSchema = z.strictObject({ allowed: z.boolean() });
export const OfflineFilesResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  data: z.object({ offline_files_allowed: z.boolean() }),
});

export const RotateKeyResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({ license: LicenseSchema, previous_key_valid_until: z.string() }),
});

export const DashboardResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    customer: z.object({ name: z.string(), email: z.string(), avatar_url: z.string().nullable() }),
    licenses: z.array(LicenseSchema),
    usage_analytics: z.object({
      total_executions: z.number().int(),
      current_month_executions: z.number().int(),
      license_utilization: z.number(),
      /** The executions a month the active licenses' plans include together: what Utilization is a share of. */
      monthly_capacity: z.number().int().optional(),
      most_used_features: z.array(z.string()),
    }),
  }),
});
export type DashboardData = z.infer<typeof DashboardResponseSchema>["data"];

export const CreateLicenseResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({ license: LicenseSchema }),
});

export const MachineSchema = z.object({
  machine_id: z.string(),
  display_id: z.string(),
  machine_name: z.string().nullable(),
  platform: z.string().nullable(),
  is_primary: z.boolean(),
  bound_at: z.string(),
  last_seen: z.string().nullable(),
  /** The last heartbeat or validation: what keeps the slot. */
  last_heartbeat_at: z.string().nullable(),
  status: z.enum(MACHINE_STATUSES),
  /** When it lost its slot (inactive only). */
  inactive_since: z.string().nullable(),
  /** Until when a license file issued to it works offline (its slot is held till then); null without one. */
  license_file_until: z.string().nullable(),
});
export type Machine = z.infer<typeof MachineSchema>;

/** A device its owner removed: it cannot bind again until allowed back. */
export const RemovedMachineSchema = z.object({
  machine_id: z.string(),
  display_id: z.string(),
  machine_name: z.string().nullable(),
  removed_at: z.string(),
  /** Revoked while a license file still worked: the file may keep running offline until then; null otherwise. */
  license_file_until: z.string().nullable(),
});
export type RemovedMachine = z.infer<typeof RemovedMachineSchema>;

export const MachineListResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    current_count: z.number().int(),
    max_machines: z.number().int(),
    machines: z.array(MachineSchema),
    removed_machines: z.array(RemovedMachineSchema),
    /** The rule the panel explains: silent longer than inactive_after_seconds loses the slot (seats.ts). */
    seat_rules: z.object({
      heartbeat_interval_seconds: z.number().int(),
      inactive_after_seconds: z.number().int(),
      revival_window_seconds: z.number().int(),
    }),
  }),
});
export type MachineList = z.infer<typeof MachineListResponseSchema>["data"];

export const AnalyticsQuerySchema = z.object({ days: z.coerce.number().int().min(1).max(90).default(30) });
export const MachineAnalyticsResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    days: z.number().int(),
    summary: z.object({
      total_attempts: z.number().int(),
      successful_attempts: z.number().int(),
      /** Devices holding a slot now (as "Devices Used" counts) that validated in the window. */
      unique_machines_active: z.number().int(),
    }),
    /**
     * Per device, busiest first: bound ones, and ones that are not (any more) — removed devices, and devices refused
     * because the license was full (the first few a day by id; the rest only in the summary).
     */
    machine_stats: z.array(
      z.object({
        /** The display id (long ids shortened), as the device list shows it. */
        machine_id: z.string(),
        /** The name the device gave, when known. */
        machine_name: z.string().nullable(),
        /** Holds a slot of the license now (active or inactive); false for a removed or refused device. */
        bound: z.boolean(),
        total_attempts: z.number().int(),
        successful_attempts: z.number().int(),
        failed_attempts: z.number().int(),
        /** Executions the device started in the window (its '{n} uses' chip counts validations). */
        executions: z.number().int().optional(),
      }),
    ),
  }),
});
export type MachineAnalytics = z.infer<typeof MachineAnalyticsResponseSchema>["data"];

export const RemoveMachineResponseSchema = z.object({ success: z.literal(true), message: z.string() });
export const RevokeMachineResponseSchema = RemoveMachineResponseSchema.extend({
  /** The revoked machine's license file may keep working offline until then; null when it held none. */
  license_file_valid_until: z.string().nullable(),
});

export const LICENSE_ERRORS = {
  duplicate: "You already have an active license. Only one license per customer is allowed.",
  tierUnavailable: "This plan is coming soon and cannot be created yet.",
  unknownTier: "Unknown tier.",
  notFound: "License not found",
  machineNotFound: "Device not found",
  lastMachine: "Cannot remove the last device",
  removedMachineNotFound: "This device is not in the removed list",
  deactivationLimit: "This license has reached its deactivations for the last 24 hours. Try again later.",
  machineNotActivated: "This machine is not activated for this license.",
  licenseFileActive: (until: Date) =>
    `This machine holds a license file that works offline until ${until.toISOString()}; its slot stays taken until then. To free it now, revoke the device: the file may keep working offline until it expires.`,
  revocationLimit: (held: number, nextFreeAt: Date) =>
    `This license already has ${held} revoked ${held === 1 ? "device" : "devices"} whose license files still work offline, one per device slot, which is the most it may have. The next one expires on ${nextFreeAt.toISOString()}.`,
} as const;

export const LICENSE_MESSAGES = {
  machineRemoved:
    "Device removed. It cannot validate again, even from the app, until you allow it back under Removed devices.",
  machineRestored: "Device allowed again. It is re-activated the next time it validates, while a slot is free.",
  refusalsDismissed: "Dismissed.",
  machineRevoked: (fileValidUntil: Date | null) =>
    fileValidUntil
      ? `Device revoked. Its slot is free now and it cannot validate again until you allow it back; its license file may keep working offline until ${fileValidUntil.toISOString()}.`
      : "Device revoked. Its slot is free now and it cannot validate again until you allow it back.",
  offlineFilesAllowed: "License files are on: an activated device can check out a file that works offline.",
  offlineFilesOff:
    "License files are off: no new file can be checked out. Files already issued work until they expire.",
} as const;
