// The operator's tenants: every workspace with its members, balance and last 30 days; credit or debit
// a wallet with a note (settling an offline top-up by its id), suspend with a reason, resume.
import { useState } from "preact/hooks";
import type { Tenant } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { formatMicros } from "../../lib/money.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { Empty, Loading, ProblemNotice, Success } from "../../ui/status.tsx";
import { CreditDialog } from "./credit-dialog.tsx";
import { OperatorOnly } from "./operator-only.tsx";
import { SuspendDialog } from "./suspend-dialog.tsx";
import { DangerButton } from "../../ui/actions.tsx";

async function allTenants(): Promise<Tenant[]> {
  const tenants: Tenant[] = [];
  for await (const tenant of session.client.operator.listWorkspaces({ limit: 100 })) tenants.push(tenant);
  return tenants;
}

export function Tenants() {
  return (
    <OperatorOnly title="Operator console" description="Every workspace on this instance: balances, use, credits and suspensions." path={PAGES.operator}>
      <TenantList />
    </OperatorOnly>
  );
}

function TenantList() {
  const [tenants, reload] = useLoad(allTenants, []);
  const [crediting, setCrediting] = useState<Tenant | null>(null);
  const [suspending, setSuspending] = useState<Tenant | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const resuming = useAction();
  const finish = (message: string) => {
    setCrediting(null);
    setSuspending(null);
    setDone(message);
    reload();
  };
  const resume = async (tenant: Tenant) => {
    setDone(null);
    if (await resuming.run(() => session.client.operator.resumeWorkspace(tenant.id).then(() => undefined))) finish(`${tenant.name} is resumed.`);
  };
  if (tenants.status === "loading") return <Loading label="Loading tenants…" />;
  if (tenants.status === "failed") return <ProblemNotice problem={tenants.problem} onRetry={reload} />;
  if (tenants.data.length === 0) return <Empty title="No workspaces yet" />;
  return (
    <>
      {done && <Success>{done}</Success>}
      <ProblemNotice problem={resuming.problem} />
      <DataTable caption="Tenants" columns={["Workspace", "Members", "Balance", "Calls (30 days)", "Spend (30 days)", "State", null]}>
        {tenants.data.map((t) => (
          <tr key={t.id}>
            <th scope="row">
              {t.name}
              {t.is_operator && <span class="badge">operator</span>}
              <div class="muted small">
                <code>{t.id}</code>
              </div>
            </th>
            <td>{t.members}</td>
            <td>{formatMicros(t.balance, t.currency)}</td>
            <td>
              {t.usage_30d.calls} <span class="muted small">({Math.round(t.usage_30d.seconds / 60)} min)</span>
            </td>
            <td>{formatMicros(t.usage_30d.spend, t.currency)}</td>
            <td>
              {t.suspended_at ? (
                <>
                  <span class="status-bad">Suspended</span>
                  <div class="muted small">
                    {formatDate(t.suspended_at)}: {t.suspended_reason}
                  </div>
                </>
              ) : (
                "Active"
              )}
            </td>
            <td class="row-actions">
              <button type="button" class="button ghost" aria-label={`Credit or debit ${t.name}`} onClick={() => (setDone(null), setCrediting(t))}>
                Credit
              </button>
              {!t.is_operator &&
                (t.suspended_at ? (
                  <button type="button" class="button secondary" disabled={resuming.busy} aria-label={`Resume ${t.name}`} onClick={() => resume(t)}>
                    Resume
                  </button>
                ) : (
                  <DangerButton label={`Suspend ${t.name}`} onClick={() => (setDone(null), setSuspending(t))}>Suspend</DangerButton>
                ))}
            </td>
          </tr>
        ))}
      </DataTable>
      {crediting && <CreditDialog tenant={crediting} onClose={() => setCrediting(null)} onDone={finish} />}
      {suspending && <SuspendDialog tenant={suspending} onClose={() => setSuspending(null)} onDone={finish} />}
    </>
  );
}
