// The dashboard's pages. The server answers each with the app's HTML page and the app's router draws it;
// e-mails link to three of them (the auth, members and front-door services build those URLs).
export const PAGES = {
  home: "/",
  signIn: "/login",
  signUp: "/signup",
  forgotPassword: "/forgot-password",
  resetPassword: "/reset-password",
  invitation: "/invitations/:token",
  newsletterConfirm: "/newsletter/confirm",
  newsletterUnsubscribe: "/newsletter/unsubscribe",
  // Where sign-up lands: the first steps, each ticked off when done.
  gettingStarted: "/getting-started",
  apiKeys: "/keys",
  auditLog: "/audit-log",
  sessions: "/sessions",
  // Agents: the list, and one agent (its tab in ?tab=).
  agents: "/agents",
  agent: "/agents/:id",
  // Calls and knowledge bases (one screen each for the list and for one record).
  calls: "/calls",
  call: "/calls/:id",
  knowledgeBases: "/knowledge",
  knowledgeBase: "/knowledge/:id",
  // Money, brand and people (/billing is where Stripe Checkout returns: src/modules/wallet/payments/topup.ts).
  billing: "/billing",
  usage: "/usage",
  members: "/members",
  widgets: "/widgets",
  whiteLabel: "/white-label",
  operator: "/operator",
  operatorPricing: "/operator/pricing",
  // Operations: numbers, carriers, campaigns, schedules; webhooks under settings.
  numbers: "/numbers",
  carriers: "/carriers",
  campaigns: "/campaigns",
  campaign: "/campaigns/:id",
  schedules: "/schedules",
  webhooks: "/settings/webhooks",
  webhookDeliveries: "/settings/webhooks/deliveries",
  webhooksFailed: "/settings/webhooks/failed",
  webhookEvents: "/settings/webhooks/events",
} as const;

export type PagePattern = (typeof PAGES)[keyof typeof PAGES];

/** Where the built script and stylesheet are served, under the dashboard's base path. */
export const ASSET_PREFIX = "/dashboard/assets/";

/** The <meta> the server names the dashboard's base path in (empty at the root). */
export const BASE_META = "parley-base";
