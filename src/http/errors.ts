// The closed set of error codes (DESIGN.md "Errors"), their statuses, and the problem+json body.
export const ERROR_CODES = {
  bad_request: { status: 400, title: "Bad request" },
  malformed_json: { status: 400, title: "Malformed JSON" },
  nesting_too_deep: { status: 400, title: "JSON nested too deeply" },
  unauthorized: { status: 401, title: "Unauthorized" },
  token_expired: { status: 401, title: "Token expired" },
  invalid_credentials: { status: 401, title: "Invalid credentials" },
  insufficient_funds: { status: 402, title: "Insufficient funds" },
  workspace_suspended: { status: 403, title: "Workspace suspended" },
  forbidden: { status: 403, title: "Forbidden" },
  insufficient_scope: { status: 403, title: "Insufficient scope" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  conflict: { status: 409, title: "Conflict" },
  // One code per situation a client handles differently (never `conflict` for all of them):
  invalid_state: { status: 409, title: "Not allowed in the current state" },
  agent_in_use: { status: 409, title: "Agent in use" },
  resource_in_use: { status: 409, title: "In use by agents" },
  agent_not_ready: { status: 409, title: "Agent not ready" },
  tests_failing: { status: 409, title: "Tests failing" },
  email_taken: { status: 409, title: "E-mail already registered" },
  already_member: { status: 409, title: "Already a member" },
  last_owner: { status: 409, title: "Last owner" },
  name_taken: { status: 409, title: "Name taken" },
  number_unavailable: { status: 409, title: "Number unavailable" },
  demo_unavailable: { status: 409, title: "Demo unavailable" },
  domain_not_verified: { status: 409, title: "Domain not verified" },
  payment_provider_unavailable: { status: 409, title: "Payment provider unavailable" },
  idempotency_key_reused: { status: 409, title: "Idempotency key reused" },
  idempotency_in_progress: { status: 409, title: "Request in progress" },
  gone: { status: 410, title: "Gone" },
  payload_too_large: { status: 413, title: "Payload too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  validation_failed: { status: 422, title: "Validation failed" },
  rate_limited: { status: 429, title: "Too many requests" },
  internal_error: { status: 500, title: "Internal server error" },
  bad_gateway: { status: 502, title: "Provider failed" },
  service_unavailable: { status: 503, title: "Service unavailable" },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  /** Dotted path of the offending input, e.g. `email` or `window.start_hour`; `query.limit` for query strings. */
  field: string;
  message: string;
}

/** Members a problem may carry beyond RFC 9457's, for a client to act on (the limit that applied). */
export interface ProblemExtensions {
  limit_bytes?: number;
  max_depth?: number;
}

/** Thrown anywhere in a request; the one error handler turns it into problem+json. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    detail?: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; members?: ProblemExtensions } = {},
  ) {
    super(detail ?? ERROR_CODES[code].title);
    this.status = ERROR_CODES[code].status;
  }
}

export const notFound = (what: string) => new ApiError("not_found", `${what} not found`);

export const invalid = (field: string, message: string) =>
  new ApiError("validation_failed", `${field}: ${message}`, { errors: [{ field, message }] });

/** 413 naming the limit that applied, in words and as `limit_bytes`. */
export function payloadTooLarge(limitBytes: number, detail = `the body exceeds the ${sizeInWords(limitBytes)} limit`): ApiError {
  return new ApiError("payload_too_large", detail, { members: { limit_bytes: limitBytes } });
}

export function sizeInWords(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / 1024 / 1024)} MiB`;
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KiB` : `${bytes} bytes`;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  request_id: string;
  errors?: FieldError[];
  limit_bytes?: number;
  max_depth?: number;
}

export function problemBody(code: ErrorCode, detail: string, requestId: string, errors?: FieldError[], members?: ProblemExtensions): Problem {
  const { status, title } = ERROR_CODES[code];
  return {
    type: `urn:problem:${code}`, // brand-neutral: white-label instances must not point at our domain
    title,
    status,
    detail,
    code,
    request_id: requestId,
    ...(errors ? { errors } : {}),
    ...members,
  };
}

export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { ...headers, "content-type": "application/problem+json" },
  });
}
