// Where an invitation e-mail links: /invitations/{token}. The invitee accepts it signed in, with the
// address the invitation was sent to.
import { useState } from "preact/hooks";
import type { MemberWithWorkspace } from "../../../sdk/ts/src/index.ts";
import { PublicPage } from "../../layout/public-page.tsx";
import { navigate, withQuery } from "../../lib/router.ts";
import { session, useSession } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { PAGES } from "../../paths.ts";
import { Link } from "../../ui/link.tsx";
import { ProblemNotice, Success } from "../../ui/status.tsx";

export function AcceptInvitation({ token, path }: { token: string; path: string }) {
  const state = useSession();
  const [joined, setJoined] = useState<MemberWithWorkspace | null>(null);
  const action = useAction();
  const accept = () =>
    action.run(async () => {
      const member = await session.client.members.acceptInvitation(token);
      await session.load();
      session.switchWorkspace(member.workspace.id);
      setJoined(member);
    });
  if (joined) {
    return (
      <PublicPage title="Invitation accepted">
        <Success>
          <p>
            You are now a member of <strong>{joined.workspace.name}</strong> ({joined.role}).
          </p>
        </Success>
        <button type="button" class="button primary wide" onClick={() => navigate(PAGES.apiKeys)}>
          Open {joined.workspace.name}
        </button>
      </PublicPage>
    );
  }
  if (state.status !== "signed-in") {
    return (
      <PublicPage title="You are invited">
        <p>You were invited to join a workspace. Sign in, or create an account, with the e-mail address the invitation was sent to; then accept it here.</p>
        <div class="stack">
          <Link class="button primary wide" href={withQuery(PAGES.signIn, { next: path })}>
            Sign in to accept
          </Link>
          <Link class="button secondary wide" href={withQuery(PAGES.signUp, { next: path })}>
            Create an account
          </Link>
        </div>
      </PublicPage>
    );
  }
  return (
    <PublicPage title="You are invited">
      <p>
        Accept the invitation as <strong>{state.user?.email}</strong>?
      </p>
      <ProblemNotice problem={action.problem} />
      <button type="button" class="button primary wide" disabled={action.busy} onClick={accept}>
        Accept invitation
      </button>
      <p class="links">
        <Link href={PAGES.apiKeys}>Not now</Link>
      </p>
    </PublicPage>
  );
}
