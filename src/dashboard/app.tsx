// Which screen a path shows, for whom: the pages e-mails link to open for anyone, sign-in and sign-up
// for the signed-out, and the rest inside the signed-in shell.
import { useEffect, useRef } from "preact/hooks";
import { Shell } from "./layout/shell.tsx";
import { useBrand } from "./lib/branding.ts";
import { match, navigate, useLocation, withQuery } from "./lib/router.ts";
import { useSession } from "./lib/session.ts";
import { PAGES } from "./paths.ts";
import { ApiKeys } from "./screens/api-keys/api-keys.tsx";
import { AuditLog } from "./screens/audit-log/audit-log.tsx";
import { ForgotPassword } from "./screens/forgot-password/forgot-password.tsx";
import { AcceptInvitation } from "./screens/invitation/accept-invitation.tsx";
import { Newsletter } from "./screens/newsletter/newsletter.tsx";
import { NotFound } from "./screens/not-found/not-found.tsx";
import { ResetPassword } from "./screens/reset-password/reset-password.tsx";
import { Sessions } from "./screens/sessions/sessions.tsx";
import { nextPath, SignIn } from "./screens/sign-in/sign-in.tsx";
import { SignUp } from "./screens/sign-up/sign-up.tsx";
import { Loading } from "./ui/status.tsx";

const SIGNED_IN_SCREENS: Record<string, { title: string; screen: (query: URLSearchParams) => preact.JSX.Element }> = {
  [PAGES.apiKeys]: { title: "API keys", screen: () => <ApiKeys /> },
  [PAGES.auditLog]: { title: "Audit log", screen: (query) => <AuditLog query={query} /> },
  [PAGES.sessions]: { title: "Sessions", screen: () => <Sessions /> },
};

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

/** After a move to another screen, the focus goes to its heading, so keyboards and screen readers start there. */
function useFocusOnNavigation(path: string) {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) return void (first.current = false);
    requestAnimationFrame(() => {
      const heading = document.querySelector("main h1") as HTMLElement | null;
      if (!heading) return;
      heading.tabIndex = -1;
      heading.focus();
    });
  }, [path]);
}

export function App() {
  const state = useSession();
  const brand = useBrand();
  const { path, query } = useLocation();
  useFocusOnNavigation(path);
  const signedIn = SIGNED_IN_SCREENS[path];
  useEffect(() => {
    document.title = signedIn ? `${signedIn.title} · ${brand.name}` : brand.name;
  }, [path, brand.name]);

  if (state.status === "loading") return <Loading />;
  const invitation = match(PAGES.invitation, path);
  if (invitation) return <AcceptInvitation token={invitation.token} path={path} />;
  switch (path) {
    case PAGES.resetPassword:
      return <ResetPassword query={query} />;
    case PAGES.newsletterConfirm:
      return <Newsletter mode="confirm" query={query} />;
    case PAGES.newsletterUnsubscribe:
      return <Newsletter mode="unsubscribe" query={query} />;
    case PAGES.signIn:
    case PAGES.signUp:
    case PAGES.forgotPassword:
      if (state.status === "signed-in") return <Redirect to={nextPath(query)} />;
      if (path === PAGES.signIn) return <SignIn query={query} />;
      return path === PAGES.signUp ? <SignUp query={query} /> : <ForgotPassword query={query} />;
  }
  if (path !== PAGES.home && !signedIn) return <NotFound />;
  if (state.status !== "signed-in") return <Redirect to={path === PAGES.home ? PAGES.signIn : withQuery(PAGES.signIn, { next: path + (query.size ? `?${query}` : "") })} />;
  if (!signedIn) return <Redirect to={PAGES.apiKeys} />;
  return (
    <Shell state={state} path={path}>
      {/* A new workspace is a new screen: nothing of the previous one's state is kept. */}
      <div key={state.workspaceId}>{signedIn.screen(query)}</div>
    </Shell>
  );
}
