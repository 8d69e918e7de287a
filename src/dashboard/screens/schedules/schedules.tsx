// Scheduled calls: one call at a moment, or a recurring one by cron in a time zone; cancel after
// confirming (the schedule stays, canceled, with its runs).
import { useState } from "preact/hooks";
import type { Agent, Schedule } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, LoadState, ProblemNotice } from "../../ui/status.tsx";
import { agentName, allAgents } from "../numbers/workspace-lists.ts";
import { CreateSchedule } from "./create-schedule.tsx";
import { DangerButton, OpenButton } from "../../ui/actions.tsx";

const load = async () => {
  const [schedules, agents] = await Promise.all([session.client.schedules.list({ limit: 100 }).all(), allAgents()]);
  return { schedules, agents };
};

const OPEN = new Set<Schedule["status"]>(["scheduled", "active"]);

export function Schedules() {
  const [lists, reload] = useLoad(load, []);
  const [creating, setCreating] = useState(false);
  const action = useAction();
  const confirm = useConfirm();
  const cancel = async (schedule: Schedule) => {
    const ok = await confirm.ask({
      title: `Cancel the call to ${schedule.to}?`,
      message: schedule.kind === "recurring" ? "No more calls are placed on this schedule." : "The call is not placed.",
      action: "Cancel schedule",
    });
    if (ok && (await action.run(async () => void (await session.client.schedules.cancel(schedule.id))))) reload();
  };
  const agents: Agent[] = lists.status === "ready" ? lists.data.agents : [];
  return (
    <>
      <PageHeader title="Scheduled calls" description="Calls an agent places by itself: once at a set time, or again and again on a cron schedule.">
        <OpenButton open={creating} onOpen={() => setCreating(true)}>
          Schedule a call
        </OpenButton>
      </PageHeader>
      {creating && (
        <CreateSchedule
          agents={agents}
          onCancel={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            reload();
          }}
        />
      )}
      <ProblemNotice problem={action.problem} />
      <LoadState state={lists} label="Loading schedules…" onRetry={reload} />
      {lists.status === "ready" && lists.data.schedules.length === 0 && (
        <Empty title="No scheduled calls">
          <p>Schedule a reminder call for a set time, or a daily check-in by cron.</p>
        </Empty>
      )}
      {lists.status === "ready" && lists.data.schedules.length > 0 && (
        <DataTable caption="Scheduled calls" columns={["To", "Agent", "When", "Status", "Next run", "Last run", null]}>
          {lists.data.schedules.map((schedule) => (
            <tr key={schedule.id}>
              <th scope="row">
                <code>{schedule.to}</code>
              </th>
              <td>{agentName(agents, schedule.agent_id)}</td>
              <td>
                {schedule.kind === "recurring" ? (
                  <>
                    <code>{schedule.cron}</code> <span class="muted small">{schedule.timezone}</span>
                  </>
                ) : (
                  formatDate(schedule.at)
                )}
              </td>
              <td>
                <span class={`badge ops-status-${schedule.status}`}>{schedule.status}</span>
              </td>
              <td>{formatDate(schedule.next_run_at, "—")}</td>
              <td>{schedule.runs[0] ? `${schedule.runs[0].status}, ${formatDate(schedule.runs[0].run_at)}` : "—"}</td>
              <td class="row-actions">
                {OPEN.has(schedule.status) && (
                  <DangerButton label={`Cancel the call to ${schedule.to}`} disabled={action.busy} onClick={() => cancel(schedule)}>Cancel</DangerButton>
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
