/** Spec section 9: every timing and limit the clients and server share. */
export const API_TIMEOUT_MS = 30_000;
export const API_MAX_ATTEMPTS = 3;
export const RETRY_BASE_DELAY_MS = 1_000;
export const RETRY_MAX_DELAY_MS = 5_000;
/** How long the SDK, in a process that is exiting, waits to end its open execution leases (decision 0048). */
export const EXECUTION_EXIT_WAIT_MS = 2_000;

export const SIGNUP_SUCCESS_PAUSE_MS = 1_500;
export const MODAL_RESET_DELAY_MS = 300;

export const SUCCESS_MESSAGE_MS = 3_000;
export const POST_AUTH_REDIRECT_MS = 500;
export const ERROR_REDIRECT_MS = 3_000;

export const ANALYTICS_WINDOW_DAYS = 30;
export const USAGE_BAR_MAX_PERCENT = 100;
/** Device activity colours, as a ratio to the busiest device. */
export const DEVICE_ACTIVITY_THRESHOLDS = { high: 0.7, medium: 0.3 } as const;

export const AUTH_TOKEN_STORAGE_KEY = "auth_token";
export const THEME_STORAGE_KEY = "theme";
