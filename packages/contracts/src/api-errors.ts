import { z } from "zod";

/** Every error the API returns: a human message and, where useful, a stable machine-readable code. */
export const ApiErrorSchema = z.object({
  success: z.literal(false),
  error: z.string(),
  code: z.string().optional(),
});
export type ApiError = z.infer<typeof ApiErrorSchema>;

export const ERROR_CODES = {
  validation: "VALIDATION_ERROR",
  malformedJson: "MALFORMED_JSON",
  notFound: "NOT_FOUND",
  rateLimited: "RATE_LIMITED",
  payloadTooLarge: "PAYLOAD_TOO_LARGE",
  unsupportedMediaType: "UNSUPPORTED_MEDIA_TYPE",
  internal: "INTERNAL_ERROR",
  /** A peer (the database) did not answer within its bound: retry shortly (503, Retry-After). */
  unavailable: "UNAVAILABLE",
} as const;
