// A Parley server process that keeps publishing events: the crash test SIGKILLs it at random moments.
// Usage: bun event-producer.ts <data-dir> <receiver-url> <total-events> [<database-url>]
import { sql } from "drizzle-orm";
import { closeParley, createParley, startServer } from "../../src/server.ts";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { events, webhookEndpoints, workspaces } from "../../src/db/schema/index.ts";
import { createUser } from "../../src/modules/auth/service.ts";
import { createEndpoint } from "../../src/modules/webhooks/service.ts";
import { publishWorkspaceEvent } from "../../src/webhooks/outbox.ts";

const [dataDir, receiverUrl, totalText, databaseUrl = ""] = process.argv.slice(2);
const total = Number(totalText);
const config = buildConfig({ host: "127.0.0.1", port: "0", dataDir, databaseUrl, allowPrivateUrls: "true", jobLeaseSeconds: "1", logLevel: "warn" });
config.checkResponses = true;
const ctx = createParley({ config, logger: createLogger("warn") });

let workspaceId = ctx.db.select({ id: workspaces.id }).from(workspaces).get()?.id;
if (!workspaceId) {
  workspaceId = createUser(ctx, { email: "crash@example.test", passwordHash: "not-used", name: "Crash" }).workspace.id;
}
if (!ctx.db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).get()) {
  createEndpoint(ctx, workspaceId, { url: receiverUrl, events: ["call.completed"] });
}
const server = startServer(ctx);
process.on("SIGTERM", async () => {
  await server.stop();
  closeParley(ctx);
  process.exit(0);
});

const produced = () => ctx.db.select({ n: sql<number>`count(*)` }).from(events).get()!.n;
while (produced() < total) {
  // Ten events per transaction, as a busy system would write them alongside its own changes.
  const batch = Math.min(10, total - produced());
  ctx.sqlite.transaction(() => {
    for (let i = 0; i < batch; i++) publishWorkspaceEvent(ctx, { workspaceId, type: "call.completed", data: { seq: produced() } });
  })();
  await Bun.sleep(10); // spread production over several lives of the process
}
process.stdout.write(`produced ${total}\n`);
