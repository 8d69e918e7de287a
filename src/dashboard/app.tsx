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
import { AgentDetail } from "./screens/agents/agent-detail.tsx";
import { Agents } from "./screens/agents/agents.tsx";
import { CallDetail } from "./screens/calls/call-detail.tsx";
import { Calls } from "./screens/calls/calls.tsx";
import { KnowledgeBase } from "./screens/knowledge/knowledge-base.tsx";
import { KnowledgeBases } from "./screens/knowledge/knowledge-bases.tsx";
import { nextPath, SignIn } from "./screens/sign-in/sign-in.tsx";
import { afterSignUp, SignUp } from "./screens/sign-up/sign-up.tsx";
import { GettingStarted } from "./screens/getting-started/getting-started.tsx";
import { CampaignPage } from "./screens/campaigns/campaign-page.tsx";
import { Campaigns } from "./screens/campaigns/campaigns.tsx";
import { Carriers } from "./screens/carriers/carriers.tsx";
import { Numbers } from "./screens/numbers/numbers.tsx";
import { Schedules } from "./screens/schedules/schedules.tsx";
import { WebhookDeliveries } from "./screens/webhooks/deliveries.tsx";
import { WebhookEvents } from "./screens/webhooks/events.tsx";
import { WebhooksFailed } from "./screens/webhooks/failed.tsx";
import { Webhooks } from "./screens/webhooks/webhooks.tsx";
import { Members } from "./screens/members/members.tsx";
import { Pricing } from "./screens/operator/pricing.tsx";
import { Tenants } from "./screens/operator/tenants.tsx";
import { Billing } from "./screens/wallet/billing.tsx";
import { Usage } from "./screens/wallet/usage.tsx";
import { WhiteLabel } from "./screens/white-label/white-label.tsx";
import { Widgets } from "./screens/widgets/widgets.tsx";
import { Loading } from "./ui/status.tsx";

/** Keyed by path or pattern (`/calls/:id`: the screen gets its parameters). */
const SIGNED_IN_SCREENS: Record<string, { title: string; screen: (query: URLSearchParams, params: Record<string, string>) => preact.JSX.Element }> = {
  [PAGES.gettingStarted]: { title: "Getting started", screen: () => <GettingStarted /> },
  [PAGES.apiKeys]: { title: "API keys", screen: () => <ApiKeys /> },
  [PAGES.auditLog]: { title: "Audit log", screen: (query) => <AuditLog query={query} /> },
  [PAGES.sessions]: { title: "Sessions", screen: () => <Sessions /> },
  [PAGES.billing]: { title: "Billing", screen: (query) => <Billing query={query} /> },
  [PAGES.usage]: { title: "Usage", screen: () => <Usage /> },
  [PAGES.members]: { title: "Members", screen: () => <Members /> },
  [PAGES.widgets]: { title: "Widgets", screen: () => <Widgets /> },
  [PAGES.whiteLabel]: { title: "White-label", screen: () => <WhiteLabel /> },
  [PAGES.operator]: { title: "Operator console", screen: () => <Tenants /> },
  [PAGES.operatorPricing]: { title: "Pricing", screen: () => <Pricing /> },
  [PAGES.agents]: { title: "Agents", screen: () => <Agents /> },
  [PAGES.agent]: { title: "Agent", screen: (query, params) => <AgentDetail key={params.id} id={params.id} tab={query.get("tab") ?? "settings"} /> },
  [PAGES.numbers]: { title: "Phone numbers", screen: () => <Numbers /> },
  [PAGES.carriers]: { title: "Carrier connections", screen: () => <Carriers /> },
  [PAGES.campaigns]: { title: "Campaigns", screen: () => <Campaigns /> },
  [PAGES.campaign]: { title: "Campaign", screen: (_, params) => <CampaignPage key={params.id} id={params.id} /> },
  [PAGES.schedules]: { title: "Scheduled calls", screen: () => <Schedules /> },
  [PAGES.webhooks]: { title: "Webhooks", screen: () => <Webhooks /> },
  [PAGES.webhookDeliveries]: { title: "Webhook deliveries", screen: (query) => <WebhookDeliveries query={query} /> },
  [PAGES.webhooksFailed]: { title: "Failed webhooks", screen: () => <WebhooksFailed /> },
  [PAGES.webhookEvents]: { title: "Webhook events", screen: () => <WebhookEvents /> },
  [PAGES.calls]: { title: "Calls", screen: (query) => <Calls query={query} /> },
  [PAGES.call]: { title: "Call", screen: (_, params) => <CallDetail id={params.id} /> },
  [PAGES.knowledgeBases]: { title: "Knowledge bases", screen: () => <KnowledgeBases /> },
  [PAGES.knowledgeBase]: { title: "Knowledge base", screen: (_, params) => <KnowledgeBase id={params.id} /> },
};

/** The signed-in screen a path shows, with the parameters of its pattern; null when none does. */
function signedInScreen(path: string) {
  const exact = SIGNED_IN_SCREENS[path];
  if (exact) return { ...exact, params: {} };
  for (const [pattern, screen] of Object.entries(SIGNED_IN_SCREENS)) {
    const params = pattern.includes(":") ? match(pattern, path) : null;
    if (params) return { ...screen, params };
  }
  return null;
}

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
  const signedIn = signedInScreen(path);
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
      if (state.status === "signed-in") return <Redirect to={path === PAGES.signUp ? afterSignUp(query) : nextPath(query)} />;
      if (path === PAGES.signIn) return <SignIn query={query} />;
      return path === PAGES.signUp ? <SignUp query={query} /> : <ForgotPassword query={query} />;
  }
  if (path !== PAGES.home && !signedIn) return <NotFound />;
  if (state.status !== "signed-in") return <Redirect to={path === PAGES.home ? PAGES.signIn : withQuery(PAGES.signIn, { next: path + (query.size ? `?${query}` : "") })} />;
  if (!signedIn) return <Redirect to={PAGES.apiKeys} />;
  return (
    <Shell state={state} path={path}>
      {/* A new workspace is a new screen: nothing of the previous one's state is kept. */}
      <div key={state.workspaceId}>{signedIn.screen(query, signedIn.params)}</div>
    </Shell>
  );
}
