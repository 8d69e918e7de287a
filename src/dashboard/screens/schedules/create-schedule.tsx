// The form for a scheduled call: the agent, the number, and a moment (this browser's time) or a cron
// pattern in a time zone.
import { useState } from "preact/hooks";
import type { Agent } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field, SelectField } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
import { agentOptions } from "../numbers/workspace-lists.ts";

const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

export function CreateSchedule({ agents, onCreated, onCancel }: { agents: Agent[]; onCreated: () => void; onCancel: () => void }) {
  const [agentId, setAgentId] = useState("");
  const [to, setTo] = useState("");
  const [kind, setKind] = useState<"one_off" | "recurring">("one_off");
  const [at, setAt] = useState("");
  const [cron, setCron] = useState("0 9 * * 1-5");
  const [timezone, setTimezone] = useState(ZONE);
  const action = useAction();
  const fields = action.problem?.fields ?? {};
  const submit = async (event: Event) => {
    event.preventDefault();
    // A datetime-local value is this browser's local time; the API takes an instant with an offset.
    const moment = at && !Number.isNaN(new Date(at).getTime()) ? new Date(at).toISOString() : at;
    const ok = await action.run(async () => {
      await session.client.schedules.create(kind === "one_off" ? { agent_id: agentId, to, at: moment } : { agent_id: agentId, to, cron, timezone });
    });
    if (ok) onCreated();
  };
  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby="new-schedule-title">
      <h2 id="new-schedule-title">Schedule a call</h2>
      <ProblemNotice problem={action.problem} />
      <SelectField label="Agent" name="agent_id" value={agentId} onChange={setAgentId} options={agentOptions(agents)} error={fields.agent_id} />
      <Field label="Number to call" name="to" required value={to} placeholder="+14155550123" hint="In E.164 form: + and the country code." error={fields.to} onInput={(e) => setTo(e.currentTarget.value)} />
      <SelectField
        label="Repeat"
        name="kind"
        value={kind}
        onChange={(value) => setKind(value as "one_off" | "recurring")}
        options={[
          { value: "one_off", label: "Once" },
          { value: "recurring", label: "On a cron schedule" },
        ]}
      />
      {kind === "one_off" ? (
        <Field label="When" name="at" type="datetime-local" required value={at} hint={`In your time zone (${ZONE}).`} error={fields.at} onInput={(e) => setAt(e.currentTarget.value)} />
      ) : (
        <div class="ops-row">
          <Field label="Cron pattern" name="cron" value={cron} hint="minute hour day month weekday: 0 9 * * 1-5 is 09:00 on weekdays." error={fields.cron} onInput={(e) => setCron(e.currentTarget.value)} />
          <Field label="Time zone" name="timezone" value={timezone} hint="IANA name, e.g. Europe/Paris." error={fields.timezone} onInput={(e) => setTimezone(e.currentTarget.value)} />
        </div>
      )}
      <FormActions submit="Schedule call" busyLabel="Scheduling…" busy={action.busy} onCancel={onCancel} />
    </form>
  );
}
