/** A field named by a 422 (or another problem): `{ field: "scope", message: "must be one of: …" }`. */
export interface FieldError {
  field: string;
  message: string;
}

/** The problem+json body of every error answer (RFC 9457). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  errors?: FieldError[];
  [key: string]: unknown;
}

/** Everything this library throws. */
export class ParleyError extends Error {
  override name = "ParleyError";
}

/** The server answered with an error status; the problem's fields are on the error. */
export class APIError extends ParleyError {
  override name = "APIError";
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly type: string;
  readonly errors: FieldError[];
  readonly requestId: string | null;
  readonly body: unknown;
  readonly headers: Headers;

  constructor(status: number, body: unknown, headers: Headers) {
    const problem = (body && typeof body === "object" ? body : {}) as Partial<ProblemDetails>;
    const detail = problem.detail ?? (typeof body === "string" && body ? body : `HTTP ${status}`);
    super(`${status} ${problem.code ?? "error"}: ${detail}`);
    this.status = status;
    this.code = problem.code ?? "error";
    this.title = problem.title ?? "";
    this.detail = detail;
    this.type = problem.type ?? "about:blank";
    this.errors = Array.isArray(problem.errors) ? problem.errors : [];
    this.requestId = problem.request_id ?? headers.get("x-request-id");
    this.body = body;
    this.headers = headers;
  }
}

export class BadRequestError extends APIError {
  override name = "BadRequestError";
}
export class AuthenticationError extends APIError {
  override name = "AuthenticationError";
}
export class PermissionDeniedError extends APIError {
  override name = "PermissionDeniedError";
}
export class NotFoundError extends APIError {
  override name = "NotFoundError";
}
export class ConflictError extends APIError {
  override name = "ConflictError";
}
export class PayloadTooLargeError extends APIError {
  override name = "PayloadTooLargeError";
}
export class UnprocessableEntityError extends APIError {
  override name = "UnprocessableEntityError";
}
export class RateLimitError extends APIError {
  override name = "RateLimitError";
  /** Seconds the server asked to wait (`Retry-After`). */
  get retryAfter(): number | null {
    const value = Number(this.headers.get("retry-after"));
    return Number.isFinite(value) && value >= 0 ? value : null;
  }
}
export class InternalServerError extends APIError {
  override name = "InternalServerError";
}

/** The request never got an answer (refused, reset, DNS). */
export class APIConnectionError extends ParleyError {
  override name = "APIConnectionError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer within the client's time-out. */
export class APITimeoutError extends APIConnectionError {
  override name = "APITimeoutError";
}

const BY_STATUS: Record<number, typeof APIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** The error class for an answer's status. */
export function errorFor(status: number, body: unknown, headers: Headers): APIError {
  const Kind = BY_STATUS[status] ?? (status >= 500 ? InternalServerError : APIError);
  return new Kind(status, body, headers);
}
