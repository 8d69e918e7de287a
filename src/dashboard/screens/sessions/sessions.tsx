// The person's sessions (one per signed-in browser or app): revoke one, or sign out everywhere.
import type { Session } from "../../../sdk/ts/src/index.ts";
import { describeDevice, formatDate } from "../../lib/format.ts";
import { navigate } from "../../lib/router.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, LoadState, ProblemNotice } from "../../ui/status.tsx";
import { DangerButton } from "../../ui/actions.tsx";

async function allSessions(): Promise<Session[]> {
  const sessions: Session[] = [];
  for await (const each of session.client.auth.listSessions({ limit: 100 })) sessions.push(each);
  return sessions;
}

export function Sessions() {
  const [sessions, reload] = useLoad(allSessions, []);
  const action = useAction();
  const confirm = useConfirm();
  const revoke = async (one: Session) => {
    const ok = await confirm.ask({ title: "Sign out this session?", message: `${describeDevice(one.user_agent)} (${one.ip ?? "unknown address"}) will have to sign in again.`, action: "Sign it out" });
    if (ok && (await action.run(() => session.client.auth.revokeSession(one.id)))) reload();
  };
  const everywhere = async () => {
    const ok = await confirm.ask({ title: "Sign out everywhere?", message: "Every session, this one included, ends now: every browser and app signed in as you must sign in again.", action: "Sign out everywhere" });
    if (!ok || sessions.status !== "ready") return;
    const done = await action.run(async () => {
      for (const other of sessions.data.filter((each) => !each.current)) await session.client.auth.revokeSession(other.id);
      await session.signOut();
    });
    if (done) navigate(PAGES.signIn, { replace: true });
  };
  return (
    <>
      <PageHeader title="Sessions" description="Where you are signed in. A session you do not recognise: sign it out, then change your password.">
        <button type="button" class="button danger" disabled={action.busy || sessions.status !== "ready"} onClick={everywhere}>
          Sign out everywhere
        </button>
      </PageHeader>
      <ProblemNotice problem={action.problem} />
      <LoadState state={sessions} label="Loading sessions…" onRetry={reload} />
      {sessions.status === "ready" && sessions.data.length === 0 && <Empty title="No sessions" />}
      {sessions.status === "ready" && sessions.data.length > 0 && (
        <DataTable caption="Sessions" columns={["Device", "IP address", "Signed in", "Last used", null]}>
          {sessions.data.map((one) => (
            <tr key={one.id}>
              <th scope="row">
                {describeDevice(one.user_agent)} {one.current && <span class="badge current">This browser</span>}
              </th>
              <td>{one.ip ?? "—"}</td>
              <td>{formatDate(one.created_at)}</td>
              <td>{formatDate(one.last_used_at)}</td>
              <td class="row-actions">
                {!one.current && (
                  <DangerButton disabled={action.busy} onClick={() => revoke(one)}>Sign out</DangerButton>
                    )}
                  </td>
                </tr>
          ))}
        </DataTable>
      )}
      {confirm.dialog}
    </>
  );
}
