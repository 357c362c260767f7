/** Request and response shapes of the licensing API (desktop app, CLI) and the customer API. */
import { z } from "zod";
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

export const CreateLicenseRequestSchema = z.strictObject({ tier: z.string().trim().min(1).max(16) });

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
});
export type License = z.infer<typeof LicenseSchema>;

export const DashboardResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    customer: z.object({ name: z.string(), email: z.string(), avatar_url: z.string().nullable() }),
    licenses: z.array(LicenseSchema),
    usage_analytics: z.object({
      total_executions: z.number().int(),
      current_month_executions: z.number().int(),
      license_utilization: z.number(),
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
});
export type Machine = z.infer<typeof MachineSchema>;

/** A device its owner removed: it cannot bind again until allowed back. */
export const RemovedMachineSchema = z.object({
  machine_id: z.string(),
  display_id: z.string(),
  machine_name: z.string().nullable(),
  removed_at: z.string(),
});
export type RemovedMachine = z.infer<typeof RemovedMachineSchema>;

export const MachineListResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    current_count: z.number().int(),
    max_machines: z.number().int(),
    machines: z.array(MachineSchema),
    removed_machines: z.array(RemovedMachineSchema),
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
      unique_machines_active: z.number().int(),
    }),
    machine_stats: z.array(
      z.object({
        machine_id: z.string(),
        total_attempts: z.number().int(),
        successful_attempts: z.number().int(),
        failed_attempts: z.number().int(),
      }),
    ),
  }),
});
export type MachineAnalytics = z.infer<typeof MachineAnalyticsResponseSchema>["data"];

export const RemoveMachineResponseSchema = z.object({ success: z.literal(true), message: z.string() });

export const LICENSE_ERRORS = {
  duplicate: "You already have an active license. Only one license per customer is allowed.",
  tierUnavailable: "This plan is coming soon and cannot be created yet.",
  unknownTier: "Unknown tier.",
  notFound: "License not found",
  machineNotFound: "Device not found",
  lastMachine: "Cannot remove the last device",
  removedMachineNotFound: "This device is not in the removed list",
} as const;

export const LICENSE_MESSAGES = {
  machineRemoved:
    "Device removed. It cannot validate again, even from the app, until you allow it back under Removed devices.",
  machineRestored: "Device allowed again. It is re-activated the next time it validates, while a slot is free.",
} as const;
