import { eq, sql } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { prepared } from "../../db/prepared.ts";
import { carrierConnections, ledgerEntries } from "../../db/schema/index.ts";
import type { AgentConfig } from "../../voice/agent-config.ts";
import { appendEntry } from "./ledger.ts";
import { pricesAt, type PriceSet } from "./pricing.ts";
import { requireBalance } from "./service.ts";

/** What a call was charged so far, per category (settling reads it every interval). */
const chargedSoFar = prepared((db) =>
  db
    .select({ category: ledgerEntries.category, amount: sql<number>`-sum(${ledgerEntries.amount})`, seconds: sql<number>`coalesce(sum(${ledgerEntries.quantity}), 0)` })
    .from(ledgerEntries)
    // Call ids are unique across workspaces: the covering index on (ref_id, category, amount, quantity) answers it alone.
    .where(eq(ledgerEntries.refId, sql.placeholder("callId")))
    .groupBy(ledgerEntries.category)
    .prepare(),
);

/** Who did the listening, speaking and thinking: the built-in offline engines or a provider connection. */
export interface CallEngines {
  speech: "builtin" | "provider";
  llm: "builtin" | "provider";
}

/** What metering reads of a call. */
export interface MeteredCall {
  id: string;
  workspaceId: string;
  agentId: string;
  carrier: string;
  direction: "inbound" | "outbound" | "web";
  answeredAt: number | null;
}

export interface Rate {
  category: string;
  perMinute: number;
}

export function enginesOf(agent: AgentConfig): CallEngines {
  const builtin = (id: string | undefined) => id === undefined || id === "builtin";
  return {
    speech: builtin(agent.transcriber.provider_id) && builtin(agent.voice.provider_id) ? "builtin" : "provider",
    llm: agent.brain.type === "llm" ? "provider" : "builtin",
  };
}

/** `simulated`, `browser`, or the kind of the carrier connection the call went through. */
export function carrierKindOf(ctx: AppContext, carrier: string): string {
  if (carrier === "simulated" || carrier === "browser") return carrier;
  return ctx.db.select({ kind: carrierConnections.kind }).from(carrierConnections).where(eq(carrierConnections.id, carrier)).get()?.kind ?? carrier;
}

/** The per-minute rates a call pays: its line (carrier and direction, or browser voice), speech and LLM. */
export function tariff(prices: PriceSet, carrierKind: string, direction: MeteredCall["direction"], engines: CallEngines): Rate[] {
  const perMinute = prices.per_minute;
  const lines = perMinute.telephony as Record<string, { inbound: number; outbound: number } | undefined>;
  const line: Rate =
    direction === "web" || carrierKind === "browser"
      ? { category: "browser_voice", perMinute: perMinute.browser_voice }
      : { category: `telephony.${carrierKind}.${direction}`, perMinute: lines[carrierKind]?.[direction] ?? 0 };
  return [line, { category: `speech.${engines.speech}`, perMinute: perMinute.speech[engines.speech] }, { category: `llm.${engines.llm}`, perMinute: perMinute.llm[engines.llm] }];
}

/** A minute of this call, in micro-units: what its workspace must hold before it starts. */
export function minuteCost(ctx: AppContext, carrierKind: string, direction: MeteredCall["direction"], agent: AgentConfig): number {
  return tariff(pricesAt(ctx, ctx.clock.now()), carrierKind, direction, enginesOf(agent)).reduce((sum, rate) => sum + rate.perMinute, 0);
}

/** Refuses a call (402) whose workspace cannot pay for its first minute; free calls always start. */
export function ensureFunds(ctx: AppContext, workspaceId: string, carrierKind: string, direction: MeteredCall["direction"], agent: AgentConfig): void {
  requireBalance(ctx, workspaceId, minuteCost(ctx, carrierKind, direction, agent), "a minute of this call");
}

/** Where a call's charges reach: the end of the last second a settlement paid for (null when none did). */
export function chargedUntil(ctx: AppContext, call: { id: string; answeredAt: number | null }): number | null {
  const seconds = Math.max(0, ...chargedSoFar(ctx.db).all({ callId: call.id }).map((row) => row.seconds));
  return call.answeredAt === null || seconds === 0 ? null : call.answeredAt + seconds * 1000;
}

/**
 * Charges a call for its talk time up to `upToMs` (whole seconds, rounded up), at the prices in force
 * when it was answered. Cumulative: each category owes ceil(rate × seconds / 60) in all and only the
 * difference from what it was already charged is written, keyed by the second it reaches, so settling
 * again (a retry, a restart) charges nothing twice. Answers the micro-units charged now.
 */
export function settleCall(ctx: AppContext, call: MeteredCall, upToMs: number, engines: CallEngines): number {
  if (call.answeredAt === null) return 0;
  const seconds = Math.max(0, Math.ceil((upToMs - call.answeredAt) / 1000));
  const rates = tariff(pricesAt(ctx, call.answeredAt), carrierKindOf(ctx, call.carrier), call.direction, engines).filter((rate) => rate.perMinute > 0);
  if (!rates.length) return 0;
  const write = () => {
    const charged = new Map(chargedSoFar(ctx.db).all({ callId: call.id }).map((row) => [row.category, row]));
    let now = 0;
    for (const rate of rates) {
      const before = charged.get(rate.category);
      const due = Math.ceil((rate.perMinute * seconds) / 60) - (before?.amount ?? 0);
      if (due <= 0) continue;
      const { duplicate } = appendEntry(ctx, {
        workspaceId: call.workspaceId,
        amount: -due,
        cause: "call_usage",
        category: rate.category,
        refType: "call",
        refId: call.id,
        agentId: call.agentId,
        quantity: seconds - (before?.seconds ?? 0),
        dedupe: `call:${call.id}:${rate.category}:${seconds}`,
      });
      if (!duplicate) now += due;
    }
    return now;
  };
  return ctx.sqlite.inTransaction ? write() : ctx.sqlite.transaction(write).immediate();
}
