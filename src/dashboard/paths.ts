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
  apiKeys: "/keys",
  auditLog: "/audit-log",
  sessions: "/sessions",
} as const;

export type PagePattern = (typeof PAGES)[keyof typeof PAGES];

/** Where the built script and stylesheet are served, under the dashboard's base path. */
export const ASSET_PREFIX = "/dashboard/assets/";

/** The <meta> the server names the dashboard's base path in (empty at the root). */
export const BASE_META = "parley-base";
