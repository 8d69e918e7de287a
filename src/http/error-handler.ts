import { Elysia, ValidationError } from "elysia";
import type { HttpContext } from "./context.ts";
import { databaseRefusal, type Refusal } from "../db/refusals.ts";
import { ApiError, problemBody, type ErrorCode, type FieldError, type ProblemExtensions } from "./errors.ts";
import { auditRequest } from "./audit-trail.ts";
import { countRefusal } from "../core/refusal-count.ts";
import type { HttpMetrics } from "./metrics.ts";
import { settleIdempotency } from "./idempotency.ts";
import { lingeringAnswer } from "./lingering.ts";
import { loggableTarget } from "./redaction.ts";
import { enforceRateLimit } from "./rate-limit.ts";
import { carriesBody, createRequestMeta, findRequestMeta, type RequestMeta } from "./request-meta.ts";
import type { RouteIndex } from "./route-index.ts";
import { fieldErrors, schemaErrors } from "./validation.ts";

const REFUSALS: Record<Refusal, { detail: string; retryAfterSeconds: number }> = {
  busy: { detail: "the database is busy: another process holds its write lock; try again in a moment", retryAfterSeconds: 1 },
  full: { detail: "the server cannot write: its disk is full (the operator has been told in its log)", retryAfterSeconds: 60 },
  io: { detail: "the server could not write to its disk (the operator has been told in its log)", retryAfterSeconds: 10 },
  // A PostgreSQL restart or failover takes seconds; Parley reconnects by itself (every second), so a
  // client back in 5 s finds it up in the common case without a stampede of retries meanwhile.
  unavailable: { detail: "the database server cannot be reached just now (restarting, or the network to it is down); try again shortly", retryAfterSeconds: 5 },
};

/** The one error handler: every failure leaves as RFC 9457 problem+json, never with a stack trace. */
export function errorHandler(ctx: HttpContext, routes: RouteIndex, metrics: HttpMetrics) {
  let outage: number | undefined; // since when the database server is unreachable, as last logged
  return new Elysia({ name: "parley.errors" }).onError({ as: "global" }, ({ code, error: thrown, request, route, body }) => {
    // Elysia wraps whatever the body parser throws; our own errors (413, 415) come out whole, and so does the
    // database refusing the admission it runs first (a credential or a rate count to look up): 503, not 400.
    const cause = code === "PARSE" ? (thrown as Error).cause : undefined;
    const error = cause instanceof ApiError || databaseRefusal(cause) ? cause : thrown;
    const meta = findRequestMeta(request) ?? createRequestMeta(request, undefined, ctx.config, ctx.clock.now());
    const headers = { ...meta.headers };
    let problemCode: ErrorCode;
    let detail: string;
    let errors: FieldError[] | undefined;
    let members: ProblemExtensions | undefined;
    const refusal = databaseRefusal(error);

    if (error instanceof ApiError) {
      problemCode = error.code;
      detail = error.message;
      errors = error.extra.errors;
      members = error.extra.members;
      Object.assign(headers, error.extra.headers);
    } else if (code === "VALIDATION" && (error as ValidationError).type !== "response") {
      problemCode = "validation_failed";
      errors = fieldErrors(error as ValidationError, routes.find(request.method, route)?.hooks.query, request.url);
      detail = errors.map((e) => `${e.field}: ${e.message}`).join("; ");
    } else if (error instanceof TypeError && /new ValidationError/.test(error.stack ?? "")) {
      // Elysia failed while describing invalid input (a value with a non-function `toString`): still a 422.
      problemCode = "validation_failed";
      errors = schemaErrors(routes.find(request.method, route)?.hooks.body, body, "body");
      detail = errors.map((e) => `${e.field}: ${e.message}`).join("; ");
    } else if (code === "NOT_FOUND") {
      ({ problemCode, detail } = unmatchedRoute(ctx, routes, request, meta, headers));
      Object.assign(headers, meta.headers);
    } else if (code === "PARSE" && !refusal) {
      problemCode = "malformed_json";
      detail = "the body could not be parsed";
    } else if (refusal) {
      // Not a defect: the database cannot take this write just now. Say so, and when to try again.
      problemCode = "service_unavailable";
      detail = REFUSALS[refusal].detail;
      headers["retry-after"] = String(REFUSALS[refusal].retryAfterSeconds);
      countRefusal(ctx.metrics, "http", error);
      const where = { request_id: meta.id, method: request.method, path: loggableTarget(route, request.url), error };
      if (refusal !== "unavailable") ctx.logger[refusal === "busy" ? "warn" : "error"]("the database refused a request's write", where);
      else if ((error as { since?: number }).since !== outage) {
        // Once per outage (each request is counted in parley_db_refusals_total): not a line per request while it lasts.
        outage = (error as { since?: number }).since;
        ctx.logger.error("the database server cannot be reached: requests that need it answer 503 until it is back", where);
      }
    } else {
      problemCode = "internal_error";
      detail = `an unexpected error occurred; quote request id ${meta.id} when reporting it`;
      ctx.logger.error("unhandled error", { request_id: meta.id, method: request.method, path: loggableTarget(route, request.url), error, stack: (error as Error)?.stack });
    }

    const problem = problemBody(problemCode, detail, meta.id, errors, members);
    meta.status = problem.status;
    const text = JSON.stringify(problem);
    try {
      settleIdempotency(ctx, meta, problem.status, text, "application/problem+json");
    } catch (settling) {
      // The database refusing this too must not cost the answer; the key's claim is taken over once abandoned.
      if (!databaseRefusal(settling)) throw settling;
    }
    auditRequest(ctx, routes, request, route, problem.status);
    metrics.record(request, route, problem.status);
    headers["content-type"] = "application/problem+json";
    // A body left unread (refused at its limit, or before it was read: 401, 404) cannot be taken for the next request.
    if (!meta.bodyRead && carriesBody(request)) return lingeringAnswer(text, { status: problem.status, headers }, request.body);
    return new Response(text, { status: problem.status, headers });
  });
}

function unmatchedRoute(ctx: HttpContext, routes: RouteIndex, request: Request, meta: RequestMeta, headers: Record<string, string>) {
  const path = new URL(request.url).pathname;
  const allowed = routes.methodsFor(path);
  try {
    // Probing for routes is anonymous traffic like any other.
    enforceRateLimit(ctx.rateLimiter, meta, `ip:${meta.ip}`, ctx.config.publicRateLimitPerMinute);
  } catch (error) {
    const limited = error as ApiError;
    Object.assign(headers, limited.extra.headers);
    return { problemCode: limited.code, detail: limited.message };
  }
  if (request.method === "GET" && routes.isWebSocket(path)) {
    return { problemCode: "bad_request" as ErrorCode, detail: `${path} is a WebSocket: open it with Upgrade: websocket` };
  }
  if (allowed.length) {
    headers.allow = allowed.join(", ");
    return { problemCode: "method_not_allowed" as ErrorCode, detail: `${request.method} is not allowed on ${path}; use ${allowed.join(", ")}` };
  }
  return { problemCode: "not_found" as ErrorCode, detail: `no route ${request.method} ${path}` };
}
