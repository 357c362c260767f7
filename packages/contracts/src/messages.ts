/** Spec section 8, verbatim. */
export const MESSAGES = {
  signupFailed: "Form submission failed",
  genericFailure: "Something went wrong. Please try again.",
  noAuthUrl: "Failed to initiate Google authentication",
  authFailed: "Authentication failed",
  licenseCreateFailed: "Failed to create license",
  duplicateLicense: "You already have an active license. Only one license per customer is allowed.",
  /** Said up front, next to every create entry point, once the one allowed license exists. */
  oneLicensePerAccount: "One license per account",
  noTokenForLicense: "Authentication token not found",
  noTokenForMachine: "Authentication required",
  machineLoadFailed: "Failed to load machine data",
  machinePanelLoadFailed: "Unable to load machine data",
  machineRemoveFailed: "Failed to remove machine",
  machineRestoreFailed: "Failed to allow the device again",
  machineRevokeFailed: "Failed to revoke the device",
  offlineFilesFailed: "Failed to change the license-file setting",
  licenseRotateFailed: "Failed to rotate the license key",
  refusalsDismissFailed: "Failed to dismiss the notice",
  signOutEverywhereFailed: "Could not sign out everywhere. Please try again.",
  dashboardLoadFailed: "Failed to load dashboard data",
  dashboardLoadFailedShort: "Failed to load dashboard",
  callbackError: (error: string) => `Authentication failed: ${error}`,
  tokenValidationFailed: "Token validation failed",
  noAuthData: "No authentication data received",
  screenshotPlaceholder: "screenshot coming soon",
  blogImagePlaceholder: "Blog Image Coming Soon",
} as const;

export const SIGNUP_UI = {
  submitting: "Securing Your Spot...",
  successTitle: "You're In",
} as const;
