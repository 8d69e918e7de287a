// Every table, one file per family. drizzle-kit reads this to generate migrations/.
export * from "./users.ts";
export * from "./workspaces.ts";
export * from "./api-keys.ts";
export * from "./audit-log.ts";
export * from "./idempotency.ts";
export * from "./jobs.ts";
export * from "./webhooks.ts";
export * from "./agents.ts";
export * from "./providers.ts";
export * from "./knowledge.ts";
export * from "./calls.ts";
export * from "./campaigns.ts";
export * from "./telephony.ts";
export * from "./browser.ts";
export * from "./money.ts";
export * from "./front-door.ts";
export * from "./white-label.ts";
