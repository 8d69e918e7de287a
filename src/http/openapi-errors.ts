import { MAX_JSON_DEPTH } from "./body-parser.ts";
import type { RouteAuth } from "./permissions.ts";
import type { RouteInfo } from "./route-index.ts";

type Json = Record<string, unknown>;

/** Every problem an operation may answer, described once under `components.responses`. */
const PROBLEMS = {
  MalformedBody: ["400", `Malformed JSON (\`malformed_json\`), or JSON nested more than ${MAX_JSON_DEPTH} levels deep (\`nesting_too_deep\`)`],
  PayloadTooLarge: ["413", "Body over the size limit; `limit_bytes` is the limit that applied"],
  UnsupportedMediaType: ["415", "Content-Type not accepted"],
  CarrierSignature: ["403", "The carrier's signature is missing or does not verify (`forbidden`)"],
  SessionTokenInvalid: ["401", "The session token is missing, unknown, already used (`unauthorized`) or expired (`token_expired`)"],
  SessionTokenOrigin: ["403", "A widget visitor's token used from another origin than the one it was issued to (`forbidden`)"],
  Unauthorized: ["401", "Missing, invalid or expired credential (`unauthorized`, `token_expired`)"],
  UserSessionRequired: ["403", "An API key was used where a user session is needed"],
  InsufficientScope: ["403", "The credential lacks the required scope (`insufficient_scope`)"],
  NotFound: ["404", "No such object in this workspace"],
  Conflict: ["409", "Conflict, or an Idempotency-Key reused with a different body"],
  ValidationFailed: ["422", "Validation failed; `errors[]` names each field"],
  RateLimited: ["429", "Rate limit exceeded; wait `Retry-After` seconds"],
  DatabaseUnavailable: ["503", "The database cannot take the write just now (`service_unavailable`): another process holds its write lock, or its disk is full; try again after `Retry-After` seconds"],
} as const satisfies Record<string, readonly [string, string]>;

type ProblemName = keyof typeof PROBLEMS;

/** The error answers of one operation, by reference; `used` collects the names the document must define. */
export function errorResponses(route: RouteInfo, auth: RouteAuth, has: { body: boolean; pathParams: boolean; query: boolean }, used: Set<ProblemName>): Json {
  const names: ProblemName[] = [];
  if (has.body) names.push("MalformedBody", "PayloadTooLarge", "UnsupportedMediaType");
  if (auth === "carrier") names.push("CarrierSignature");
  else if (auth === "token") names.push("SessionTokenInvalid", "SessionTokenOrigin");
  else if (auth !== "public") names.push("Unauthorized", auth === "user" ? "UserSessionRequired" : "InsufficientScope");
  if (has.pathParams) names.push("NotFound");
  if (route.method === "POST") names.push("Conflict");
  if (has.body || has.query || has.pathParams) names.push("ValidationFailed");
  names.push("RateLimited");
  if (route.method !== "GET") names.push("DatabaseUnavailable");
  const out: Json = {};
  for (const name of names) {
    used.add(name);
    out[PROBLEMS[name][0]] = { $ref: `#/components/responses/${name}` };
  }
  return out;
}

/** `components.responses` for the problems some operation answers. */
export function problemResponses(used: Set<ProblemName>): Json {
  const out: Json = {};
  for (const name of [...used].sort()) {
    const response: Json = { description: PROBLEMS[name][1], content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } };
    if (name === "RateLimited") response.headers = { "Retry-After": { description: "Seconds until the window resets", schema: { type: "integer", minimum: 1 } } };
    if (name === "DatabaseUnavailable") response.headers = { "Retry-After": { description: "Seconds to wait before trying again", schema: { type: "integer", minimum: 1 } } };
    out[name] = response;
  }
  return out;
}

export type { ProblemName };

/** The optional header every POST takes, defined once under `components.parameters`. */
export const IDEMPOTENCY_KEY = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Repeat a POST safely: the first response is replayed for 24 h; the same key with a different body is 409.",
  schema: { type: "string", maxLength: 255 },
};
