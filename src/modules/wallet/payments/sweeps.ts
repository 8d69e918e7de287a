import type { AppContext } from "../../../core/context.ts";
import type { Sweep } from "../../../scheduler/system-sweeps.ts";
import { sweepAutoRecharge } from "./auto-recharge.ts";
import { reconcileOverdue } from "./reconcile.ts";

/**
 * The payments' periodic work: low wallets queue their recharge (every few seconds, as quickly as
 * calls spend) and overdue pending payments are settled from the provider's own records.
 */
export function paymentSweeps(ctx: AppContext): Sweep[] {
  let reconciling = false;
  return [
    { name: "automatic recharges", atStart: true, once: true, pattern: "*/5 * * * * *", run: () => sweepAutoRecharge(ctx) },
    {
      name: "overdue payments",
      atStart: true,
      once: true,
      pattern: "0 * * * * *",
      run() {
        if (reconciling) return;
        reconciling = true;
        return reconcileOverdue(ctx).finally(() => (reconciling = false));
      },
    },
  ];
}
