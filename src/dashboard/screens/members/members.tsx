// Members: who is in the workspace and with which role; invite by e-mail with a role (the link is also
// shown, to pass on yourself), change a role, remove after confirming.
import { useState } from "preact/hooks";
import type { Invitation, Member, MemberRole } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { session, useSession } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { CopyButton } from "../../ui/copy-button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, LoadState, ProblemNotice } from "../../ui/status.tsx";
import { InviteMember } from "./invite-member.tsx";
import { DangerCell } from "../../ui/actions.tsx";

export const ROLES: { value: MemberRole; label: string }[] = [
  { value: "owner", label: "Owner" },
  { value: "admin", label: "Admin" },
  { value: "member", label: "Member" },
  { value: "viewer", label: "Viewer" },
];

async function allMembers(): Promise<Member[]> {
  const members: Member[] = [];
  for await (const member of session.client.members.list({ limit: 100 })) members.push(member);
  return members;
}

export function Members() {
  const me = useSession().user;
  const [members, reload] = useLoad(allMembers, []);
  const [inviting, setInviting] = useState(false);
  const [invited, setInvited] = useState<Invitation | null>(null);
  const changing = useAction();
  const confirm = useConfirm();
  const changeRole = (member: Member, role: MemberRole) => changing.run(() => session.client.members.update(member.id, { role }).then(() => undefined)).then(reload);
  const remove = async (member: Member) => {
    const ok = await confirm.ask({ title: `Remove ${member.name ?? member.email}?`, message: `${member.email} loses access to this workspace at once. They can be invited again.`, action: "Remove member" });
    if (ok && (await changing.run(() => session.client.members.remove(member.id)))) reload();
  };
  return (
    <>
      <PageHeader title="Members" description="People who work in this workspace. Owners and admins invite, change roles and remove.">
        {!inviting && (
          <button type="button" class="button primary" onClick={() => (setInviting(true), setInvited(null))}>
            Invite member
          </button>
        )}
      </PageHeader>
      {inviting && (
        <InviteMember
          onCancel={() => setInviting(false)}
          onInvited={(invitation) => {
            setInviting(false);
            setInvited(invitation);
          }}
        />
      )}
      {invited && <InvitationSent invitation={invited} onDone={() => setInvited(null)} />}
      <ProblemNotice problem={changing.problem} />
      <LoadState state={members} label="Loading members…" onRetry={reload} />
      {members.status === "ready" && members.data.length === 0 && <Empty title="No members" />}
      {members.status === "ready" && members.data.length > 0 && (
        <DataTable caption="Members" columns={["Name", "E-mail", "Role", "Joined", null]}>
          {members.data.map((member) => {
            const who = member.name ?? member.email;
            const self = member.user_id === me?.id;
            return (
              <tr key={member.id}>
                <th scope="row">
                  {who}
                  {self && <span class="badge current">you</span>}
                </th>
                <td>{member.email}</td>
                <td>
                  <label class="visually-hidden" for={`role-${member.id}`}>
                    Role of {who}
                  </label>
                  <select id={`role-${member.id}`} class="members-role" value={member.role} disabled={changing.busy} onChange={(e) => changeRole(member, e.currentTarget.value as MemberRole)}>
                    {ROLES.map((role) => (
                      <option key={role.value} value={role.value}>{role.label}</option>
                    ))}
                  </select>
                </td>
                <td>{formatDate(member.created_at)}</td>
                <DangerCell label={`Remove ${who}`} busy={changing.busy} onClick={() => remove(member)}>
                  Remove
                </DangerCell>
              </tr>
            );
          })}
        </DataTable>
      )}
      {confirm.dialog}
    </>
  );
}

function InvitationSent({ invitation, onDone }: { invitation: Invitation; onDone: () => void }) {
  return (
    <section class="panel highlight" aria-labelledby="invited-title">
      <h2 id="invited-title">Invitation for {invitation.email}</h2>
      <p>
        Send them this link; it is shown only now, and works until {formatDate(invitation.expires_at)}. They open it signed in (or signed up) with that address and join as {invitation.role}.
      </p>
      <div class="secret-row">
        <label for="invitation-link" class="visually-hidden">
          Invitation link for {invitation.email}
        </label>
        <input id="invitation-link" class="secret" readOnly value={invitation.accept_url} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={invitation.accept_url} label="Copy link" />
      </div>
      <div class="actions">
        <button type="button" class="button primary" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}
