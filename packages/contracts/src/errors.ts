/**
 * Every error a client can see is one of these codes. Domain code fails with an `AppError` carrying
 * a code; only the HTTP edge turns it into a status and a body, through `errorCatalog` below.
 */
export const errorCatalog = {
  RequestParametersValidationError: { status: 400, message: 'Invalid request parameters' },
  AuthenticationRequired: {
    status: 401,
    message:
      "Invalid or missing secret: send the client's secret as the Basic user name with an empty password, or a Bearer JWT signed with its jwtSecret",
    challenge: true,
  },
  EndpointAccessAuthorizationError: { status: 401, message: 'The authenticated user has no access to the endpoint', challenge: true },
  Forbidden: { status: 403, message: 'The credential does not grant access to this endpoint' },
  NotFound: { status: 404, message: 'Resource not found' },
  Conflict: { status: 409, message: 'Resource already exists' },
  PayloadTooLarge: { status: 413, message: 'Request body too large' },
  UnsupportedMediaType: { status: 415, message: 'Unsupported Content-Type' },
  TooManyRequests: { status: 429, message: 'Too many requests' },
  InternalError: { status: 500, message: 'Unexpected server error; retry later' },
  // A store (PostgreSQL, Redis) is unreachable: nothing was done, and the same request may be sent again.
  ServiceUnavailable: { status: 503, message: 'Service unavailable; retry later', retryAfterSeconds: 5 },
  BindingAlreadyExists: { status: 409, message: 'This recipient already has an active binding' },
  BindingNotFound: { status: 404, message: 'No binding exists for this recipient' },
  AccountPoolExhausted: { status: 503, message: 'No mailbox account is available; retry later' },
  // The deployment has no VAULT_KEY: cards cannot be stored until an operator sets one.
  VaultNotConfigured: { status: 503, message: 'The card vault is not configured on this deployment (VAULT_KEY)' },
  // Bookings: the consent was not an exact copy of the final price the booking shows (nothing was booked).
  FinalPriceNotFound: { status: 409, message: 'The final price sent is not the one this booking shows' },
} as const satisfies Record<string, { status: number; message: string; challenge?: true; retryAfterSeconds?: number }>;

/**
 * What a 401 answers in `WWW-Authenticate` (RFC 9110 §11.6.1): the schemes every API endpoint
 * accepts, so a client (curl, an HTTP library) knows how to authenticate.
 */
export const authenticationChallenges = ['Basic realm="quarry"', 'Bearer realm="quarry"'] as const;

export type ErrorCode = keyof typeof errorCatalog;

export type ErrorDetails = { messages?: string[] } & Record<string, unknown>;

/** A failure the client should see, named by code. Never carries an HTTP status of its own. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  /** When the client may try again (a limit that resets, a store coming back). */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message?: string, details: ErrorDetails = {}, options: { retryAfterSeconds?: number } = {}) {
    super(message ?? errorCatalog[code].message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function validationError(messages: string[]): AppError {
  return new AppError('RequestParametersValidationError', messages.join('; '), { messages });
}

/**
 * The two body shapes of the interface. Question retrieval answers `{error, message}`; every other
 * surface answers `{object: "error", name, message, details}` (the interface's error bodies).
 */
export type ErrorSurface = 'questions' | 'standard';

export type StandardErrorBody = { object: 'error'; name: string; message: string; details: ErrorDetails };
export type QuestionsErrorBody = { error: string; message: string };

export type ErrorHeaders = { 'WWW-Authenticate'?: readonly string[]; 'Retry-After'?: string };

export function renderError(
  error: AppError,
  surface: ErrorSurface,
): { status: number; body: StandardErrorBody | QuestionsErrorBody; headers: ErrorHeaders } {
  const entry: { status: number; challenge?: true; retryAfterSeconds?: number } = errorCatalog[error.code];
  const retryAfterSeconds = error.retryAfterSeconds ?? entry.retryAfterSeconds;
  const headers: ErrorHeaders = {
    ...(entry.challenge ? { 'WWW-Authenticate': authenticationChallenges } : {}),
    ...(retryAfterSeconds !== undefined ? { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } : {}),
  };
  if (surface === 'questions') return { status: entry.status, body: { error: error.code, message: error.message }, headers };
  return { status: entry.status, body: { object: 'error', name: error.code, message: error.message, details: error.details }, headers };
}
