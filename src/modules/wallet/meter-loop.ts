import { and, eq, inArray, isNull } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { calls } from "../../db/schema/index.ts";
import { SECOND } from "../../lib/time.ts";
import { liveCalls } from "../../voice/runtime/registry.ts";
import { walletOf } from "./ledger.ts";
import { settleCall, type CallEngines, type MeteredCall } from "./metering.ts";
import { failureLevel } from "../../db/refusals.ts";
import { countRefusal } from "../../core/refusal-count.ts";

/** The engines a call's agent version uses (handed over by the composition root, which reads agents). */
export type EnginesOfCall = (call: MeteredCall) => CallEngines;

const cutoffs = new WeakMap<AppContext, Map<string, number>>();

/** Calls ended for money and the moment charging stopped: the closing line is not charged, so no wallet overdraws by more than one interval. */
export function fundsCutoffs(ctx: AppContext): Map<string, number> {
  let map = cutoffs.get(ctx);
  if (!map) cutoffs.set(ctx, (map = new Map()));
  return map;
}

/**
 * Every `--settlement-seconds`, each answered live call is charged up to now; a call whose wallet is
 * then empty says the operator's line and ends `insufficient_funds`. Between two passes a wallet can
 * overdraw by at most one interval of its live calls' cost; the final charge is made when a call ends.
 */
export function startMetering(ctx: AppContext, enginesOfCall: EnginesOfCall): { stop(): void } {
  const endingForFunds = new Set<string>();
  const pass = () => {
    const live = liveCalls(ctx);
    if (live.size === 0) return;
    const rows = ctx.db
      .select({ id: calls.id, workspaceId: calls.workspaceId, agentId: calls.agentId, carrier: calls.carrier, direction: calls.direction, answeredAt: calls.answeredAt })
      .from(calls)
      .where(and(inArray(calls.id, [...live.keys()]), eq(calls.status, "in_progress"), isNull(calls.testRunId))) // agent tests' calls are free
      .all();
    const now = ctx.clock.now();
    // Charged by the call's own clock, the one its duration is recorded by: a busy event loop slows that
    // clock, and a pass by the wall's would charge seconds the ended call does not show.
    const talkedUntil = new Map(rows.map((call) => [call.id, call.answeredAt === null ? now : call.answeredAt + (live.get(call.id)?.talkMs() ?? now - call.answeredAt)]));
    const charged = new Set<string>();
    const engines = new Map(rows.map((call) => [call.id, enginesOfCall(call)]));
    // Wallets locked in one order by every process settling them (PostgreSQL), so two passes never deadlock.
    rows.sort((a, b) => (a.workspaceId < b.workspaceId ? -1 : a.workspaceId > b.workspaceId ? 1 : 0));
    // One transaction for the whole pass: hundreds of settlements commit together. Each is a savepoint of
    // its own: one refused (PostgreSQL aborts a transaction at its first error) takes back only itself.
    ctx.sqlite
      .transaction(() => {
        for (const call of rows) {
          if (endingForFunds.has(call.id)) continue; // saying its closing line: no longer charged
          try {
            if (ctx.sqlite.transaction(() => settleCall(ctx, call, talkedUntil.get(call.id)!, engines.get(call.id)!))() > 0) charged.add(call.id);
          } catch (error) {
            countRefusal(ctx.metrics, "metering", error);
            ctx.logger[failureLevel(error)]("settling a live call failed", { call_id: call.id, error: (error as Error).message });
          }
        }
      })
      .immediate();
    for (const call of rows) {
      // Only a call that costs something is ended for money (a free call in the same workspace goes on).
      if (!charged.has(call.id) || endingForFunds.has(call.id) || walletOf(ctx, call.workspaceId).balance > 0) continue;
      endingForFunds.add(call.id);
      fundsCutoffs(ctx).set(call.id, talkedUntil.get(call.id)!);
      live.get(call.id)?.sayAndEnd(ctx.config.insufficientFundsMessage, "insufficient_funds");
      void live.get(call.id)?.done.finally(() => {
        endingForFunds.delete(call.id);
        fundsCutoffs(ctx).delete(call.id);
      });
    }
  };
  const timer = setInterval(() => {
    try {
      pass();
    } catch (error) {
      // The database refused the pass (locked, disk full): the next one charges every call up to its own time.
      countRefusal(ctx.metrics, "metering", error);
      ctx.logger[failureLevel(error)]("metering pass failed", { error });
    }
  }, ctx.config.settlementSeconds * SECOND);
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
