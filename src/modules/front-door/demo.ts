import { randomInt } from "node:crypto";
import { parsePhoneNumberFromString, type NumberType } from "libphonenumber-js/max";
import type { AppContext } from "../../core/context.ts";
import { ApiError, invalid } from "../../http/errors.ts";
import { safeEqual } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import { toIso } from "../../lib/time.ts";
import type { AgentConfig } from "../../voice/agent-config.ts";
import { FRONT_DOOR_LIMITS as LIMITS } from "./limits.ts";
import type { DemoCallInput } from "./models.ts";
import * as repo from "./repo.ts";
import { checkCap, checkForm, visitorOf, type Visitor } from "./service.ts";

/** What the demo reaches across features (handed over by the composition root). */
export interface DemoServices {
  /** The instance operator's workspace, or null before `parley user create --operator` made one. */
  operatorWorkspaceId: () => string | null;
  /** An agent of a workspace (ApiError when it is not one of its agents). */
  agentConfig: (workspaceId: string, agentId: string) => AgentConfig;
  /** Queues a real outbound call through the calls feature (ApiError when it cannot be placed). */
  placeCall: (workspaceId: string, input: { agent_id: string; to: string; variables: Record<string, unknown>; metadata: Record<string, unknown> }) => { id: string };
}

/** The variable the verification agent's first message speaks. */
export const DEMO_CODE_VARIABLE = "demo_code";

/** Numbers a person answers; premium-rate, shared-cost, toll-free, pager, UAN and voicemail-only numbers are refused. */
const CALLABLE: ReadonlySet<NumberType> = new Set<NumberType>(["FIXED_LINE", "MOBILE", "FIXED_LINE_OR_MOBILE", "PERSONAL_NUMBER", "VOIP"]);

const unavailable = (detail = "the demo call is not available on this instance right now") => new ApiError("demo_unavailable", detail);

/** A destination the demo may call, in E.164; 422 on `to` otherwise (emergency and short codes are not valid numbers). */
export function demoNumber(to: string): string {
  const parsed = parsePhoneNumberFromString(to);
  if (!parsed?.isValid() || parsed.number !== to) throw invalid("to", "is not a valid phone number in E.164 form (+ country code and number)");
  const type = parsed.getType();
  if (!type || !CALLABLE.has(type)) {
    throw invalid("to", `is ${type ? `a ${type.toLowerCase().replace(/_/g, "-")} number` : "a number of unknown kind"}; the demo calls fixed-line and mobile numbers only`);
  }
  return parsed.number;
}

/** An agent of the operator's workspace named by the instance's settings, or 409 `demo_unavailable` (the reason goes to the log). */
function operatorAgent(ctx: AppContext, services: DemoServices, setting: "demoAgent" | "demoVerifyAgent") {
  const agentId = ctx.config[setting];
  if (!agentId) {
    throw unavailable(setting === "demoAgent" ? "this instance offers no demo call" : "this instance does not verify demo numbers: POST /v1/demo/call directly");
  }
  const workspaceId = services.operatorWorkspaceId();
  if (!workspaceId) {
    ctx.logger.warn("demo refused: no operator workspace yet (parley user create --operator)", { setting });
    throw unavailable();
  }
  try {
    return { workspaceId, agentId, config: services.agentConfig(workspaceId, agentId) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    ctx.logger.warn("demo refused: the configured agent is not an agent of the operator workspace", { setting, agent_id: agentId });
    throw unavailable();
  }
}

/** 429 when the number, or the visitor, has had its demo calls for the day (verification calls count too). */
function checkDemoCaps(ctx: AppContext, number: string, visitor: string, now: number): void {
  const since = now - LIMITS.demoWindowMs;
  checkCap(repo.demoCallTimesSince(ctx.db, { number }, since), LIMITS.demoCallsPerNumber, LIMITS.demoWindowMs, now, (retryAfter) =>
    `${number} has been called ${LIMITS.demoCallsPerNumber} times by the demo within 24 hours, the most allowed; retry in ${retryAfter} s`,
  );
  checkCap(repo.demoCallTimesSince(ctx.db, { visitor }, since), LIMITS.demoCallsPerVisitor, LIMITS.demoWindowMs, now, (retryAfter) =>
    `this address has asked for ${LIMITS.demoCallsPerVisitor} demo calls within 24 hours, the most allowed; retry in ${retryAfter} s`,
  );
}

/** Counts the caps, places the call and records it in one transaction: two requests cannot both take the last call. */
function placeCounted(ctx: AppContext, services: DemoServices, rowId: string, request: { workspaceId: string; agentId: string; number: string; variables: Record<string, unknown> }, visitor: string) {
  const now = ctx.clock.now();
  return ctx.sqlite.transaction(() => {
    checkDemoCaps(ctx, request.number, visitor, now);
    let call: { id: string };
    try {
      call = services.placeCall(request.workspaceId, { agent_id: request.agentId, to: request.number, variables: request.variables, metadata: { demo_id: rowId } });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // The operator's set-up (no number, an agent not ready, no funds) is not the visitor's business.
      ctx.logger.warn("demo call could not be placed", { demo_id: rowId, agent_id: request.agentId, reason: error.message });
      throw unavailable();
    }
    repo.insertDemoCall(ctx.db, { id: rowId, number: request.number, callId: call.id, visitor, createdAt: now });
    return call;
  })();
}

// ---- Verification by a spoken code (kept in memory: one process serves the instance, and a restart only asks for a new code) ----

interface PendingVerification {
  number: string;
  code: string;
  expiresAt: number;
  attemptsLeft: number;
}

const pendingByContext = new WeakMap<AppContext, Map<string, PendingVerification>>();

function pendingVerifications(ctx: AppContext, now: number): Map<string, PendingVerification> {
  let pending = pendingByContext.get(ctx);
  if (!pending) pendingByContext.set(ctx, (pending = new Map()));
  for (const [id, entry] of pending) if (entry.expiresAt <= now) pending.delete(id);
  return pending;
}

/** Is the instance set to verify numbers before the demo calls them? */
export function verifiesNumbers(ctx: AppContext): boolean {
  return ctx.config.demoVerifyAgent !== "";
}

/** Places a short call whose agent speaks a fresh code; the code then unlocks one demo call to that number. */
export function startDemoVerification(ctx: AppContext, services: DemoServices, input: { to: string; form_started_at: number; website?: string }, client: Visitor) {
  checkForm(ctx, input);
  operatorAgent(ctx, services, "demoAgent");
  const verifier = operatorAgent(ctx, services, "demoVerifyAgent");
  if (!verifier.config.first_message?.includes(`{{${DEMO_CODE_VARIABLE}}}`)) {
    ctx.logger.warn(`demo verification refused: the verification agent's first_message must say {{${DEMO_CODE_VARIABLE}}}`, { agent_id: verifier.agentId });
    throw unavailable();
  }
  const number = demoNumber(input.to);
  const code = Array.from({ length: LIMITS.demoCodeDigits }, () => randomInt(10)).join("");
  const id = newId("dver");
  // Spaced, so the voice reads it digit by digit.
  placeCounted(ctx, services, id, { workspaceId: verifier.workspaceId, agentId: verifier.agentId, number, variables: { [DEMO_CODE_VARIABLE]: code.split("").join(" ") } }, visitorOf(ctx, client.ip));
  const now = ctx.clock.now();
  const expiresAt = now + LIMITS.demoCodeLifetimeMs;
  pendingVerifications(ctx, now).set(id, { number, code, expiresAt, attemptsLeft: LIMITS.demoCodeAttempts });
  return { id, object: "demo_verification" as const, to: number, code_digits: LIMITS.demoCodeDigits, attempts: LIMITS.demoCodeAttempts, expires_at: toIso(expiresAt) };
}

/** 422 naming the field at fault unless `code` is the one spoken to `number`; a wrong code uses up an attempt. */
function checkVerification(ctx: AppContext, input: DemoCallInput, number: string): void {
  if (!input.verification_id) throw invalid("verification_id", "is required: this instance first proves the number with a spoken code (POST /v1/demo/verify)");
  if (!input.code) throw invalid("code", "is required: the digits the verification call spoke");
  const pending = pendingVerifications(ctx, ctx.clock.now());
  const entry = pending.get(input.verification_id);
  if (!entry) throw invalid("verification_id", "is unknown, used or expired: ask for a new code (POST /v1/demo/verify)");
  if (entry.number !== number) throw invalid("to", "is not the number this verification called");
  if (!safeEqual(input.code.replace(/[\s-]/g, ""), entry.code)) {
    entry.attemptsLeft -= 1;
    if (entry.attemptsLeft <= 0) pending.delete(input.verification_id);
    throw invalid("code", entry.attemptsLeft > 0 ? `does not match; ${entry.attemptsLeft} attempts left` : "does not match, and that was the last attempt: ask for a new code");
  }
}

/** The demo itself (155): a real call from the operator's demo agent to the visitor's number. */
export function placeDemoCall(ctx: AppContext, services: DemoServices, input: DemoCallInput, client: Visitor) {
  checkForm(ctx, input);
  const demo = operatorAgent(ctx, services, "demoAgent");
  const number = demoNumber(input.to);
  const verified = verifiesNumbers(ctx);
  if (verified) checkVerification(ctx, input, number);
  const id = newId("demo");
  placeCounted(ctx, services, id, { workspaceId: demo.workspaceId, agentId: demo.agentId, number, variables: {} }, visitorOf(ctx, client.ip));
  // Used once the call is placed (a refused call leaves the code good for another try).
  if (verified) pendingVerifications(ctx, ctx.clock.now()).delete(input.verification_id!);
  return { id, object: "demo_call" as const, to: number, verified, created_at: toIso(ctx.clock.now()) };
}

/** For deleting an agent: the instance settings that name it for the public demo, one sentence each. */
export function demoUsingAgent(ctx: AppContext, _workspaceId: string, agentId: string): string[] {
  const uses: string[] = [];
  if (ctx.config.demoAgent === agentId) uses.push("the public demo call uses it (--demo-agent)");
  if (ctx.config.demoVerifyAgent === agentId) uses.push("the public demo's number verification uses it (--demo-verify-agent)");
  return uses;
}
