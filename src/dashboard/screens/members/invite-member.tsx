// The form of an invitation: an e-mail address and the role it joins with.
import { useState } from "preact/hooks";
import type { InvitableRole, Invitation } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field, SelectField } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";

const INVITABLE = [
  { value: "admin", label: "Admin: also members, keys, billing and settings" },
  { value: "member", label: "Member: builds agents and makes calls" },
  { value: "viewer", label: "Viewer: reads only" },
];

export function InviteMember({ onInvited, onCancel }: { onInvited: (invitation: Invitation) => void; onCancel: () => void }) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<InvitableRole>("member");
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => onInvited(await session.client.members.invite({ email, role })));
  };
  const fields = action.problem?.fields ?? {};
  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby="invite-title">
      <h2 id="invite-title">Invite a member</h2>
      <ProblemNotice problem={action.problem} />
      <Field label="E-mail" name="email" type="email" autocomplete="off" required autoFocus value={email} error={fields.email} onInput={(e) => setEmail(e.currentTarget.value)} />
      <SelectField label="Role" name="role" value={role} onChange={(value) => setRole(value as InvitableRole)} options={INVITABLE} error={fields.role} />
      <FormActions submit="Send invitation" busy={action.busy} busyLabel="Inviting…" onCancel={onCancel} />
    </form>
  );
}
