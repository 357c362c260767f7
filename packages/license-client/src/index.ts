/** The SDK the desktop app uses to talk to the licensing API, plus offline verification and local state. */

export {
  type AnswerFailureReason,
  type AnswerVerification,
  newNonce,
  parseSignatureHeader,
  verifyAnswer,
} from "./answers";
export {
  type CallOptions,
  type ClientConfiguration,
  DEFAULT_BASE_URL,
  DEFAULT_MAX_RETRY_AFTER_MS,
  type DeactivateResult,
  type EndExecutionResult,
  type ExecutionAnswer,
  type ExecutionLeaseRequest,
  LicenseClient,
  type LicenseClientOptions,
  type LicenseFeatures,
  type OfflineActivationResult,
  parseRetryAfter,
  type RunningExecutionsResult,
  type StartExecutionRequest,
  type UsageRequest,
  type UsageResult,
  type ValidateRequest,
  type ValidateResult,
} from "./client";
export {
  ExecutionEndedError,
  type ExecutionHolder,
  ExecutionLimitError,
  isConnectivityError,
  LicenseAnswerError,
  LicenseApiError,
  LicenseClientError,
  LicenseInputError,
  LicenseNetworkError,
  LicenseProtocolError,
  LicenseStateError,
  LicenseTokenError,
  NotActivatedError,
} from "./errors";
export {
  EXIT_END_TIMEOUT_MS,
  Execution,
  type ExecutionEnd,
  endOpenExecutions,
  openExecutionCount,
  type StartExecutionOptions,
} from "./executions";
export {
  type ActivationRequestFile,
  activationRequest,
  type LicenseFile,
  parseLicenseFile,
  verifyLicenseFile,
} from "./files";
export {
  type ActivateOptions,
  type ActivationResult,
  type CheckFailureReason,
  type CheckForUpdateOptions,
  type DeactivationResult,
  type LicenseCheck,
  LicenseManager,
  type LicenseManagerOptions,
  type ManagerDownloadOptions,
  tokenExpiry,
} from "./license-manager";
export {
  currentSystem,
  DEFAULT_MACHINE_KIND,
  firstMacAddress,
  getMachineId,
  type MachineIdOptions,
  machineKind,
  type SystemFacts,
} from "./machine-id";
export {
  DEFAULT_CLOCK_TOLERANCE_SECONDS,
  type LicenseTokenClaims,
  MAX_TOKEN_LIFETIME_SECONDS,
  type OfflineFailureReason,
  type OfflineVerification,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
  type VerifyTokenOptions,
  verifyLicenseToken,
} from "./offline";
export { type ErrorListener, LicenseSession, type LicenseSessionOptions, type StatusListener } from "./session";
export {
  defaultStatePath,
  FileStateStore,
  type LicenseState,
  MemoryStateStore,
  parseState,
  STATE_VERSION,
  type StateStore,
  type StoredLicense,
  writeFileAtomic,
} from "./state";
export {
  BUILD_KIND,
  type BuildKind,
  keyIdOf,
  PINNED_KEYS,
  type TrustedKey,
  type TrustedKeyInput,
  trustedKey,
} from "./trusted-keys";
export {
  compareVersions,
  type DownloadedUpdate,
  type DownloadProgress,
  type DownloadUpdateOptions,
  downloadUpdate,
  partPath,
  type Update,
  UpdateError,
  type UpdateFailureReason,
} from "./updates";
