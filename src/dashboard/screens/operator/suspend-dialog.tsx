// Suspending a tenant: the reason, and what it does, before the operator confirms.
import { useState } from "preact/hooks";
import type { Tenant } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Dialog } from "../../ui/dialog.tsx";
import { Field } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";

export function SuspendDialog({ tenant, onClose, onDone }: { tenant: Tenant; onClose: () => void; onDone: (message: string) => void }) {
  const [reason, setReason] = useState("");
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      await session.client.operator.suspendWorkspace(tenant.id, { reason });
      onDone(`${tenant.name} is suspended.`);
    });
  };
  return (
    <Dialog title={`Suspend ${tenant.name}?`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <p>Its keys and members are refused from the next request, its live calls end, queued calls are canceled and its widgets stop answering. Resume lifts it.</p>
        <ProblemNotice problem={action.problem} />
        <Field label="Reason" name="reason" required autoFocus hint="For your records: an unpaid invoice, an abuse report." value={reason} error={action.problem?.fields.reason} onInput={(e) => setReason(e.currentTarget.value)} />
        <FormActions submit="Suspend workspace" busy={action.busy} busyLabel="Suspending…" onCancel={onClose} danger />
      </form>
    </Dialog>
  );
}
