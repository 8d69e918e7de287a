import { Elysia, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import type { AppContext } from "../../core/context.ts";
import { VERSION } from "../../core/version.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { offlineRecognition } from "../../voice/speech/engines.ts";
import { nameSchemas } from "../../lib/schema-names.ts";
import { DatabaseUnavailableError } from "../../db/postgres/errors.ts";
import { toIso } from "../../lib/time.ts";
import { findNode, liveNodes, type NodeRow } from "../../cluster/nodes.ts";

const doc = docsFor("Health");

const Check = t.Object({ status: t.Union([t.Literal("ok"), t.Literal("failing")]), detail: t.Optional(t.String()) });
const DatabaseCheck = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("failing")]),
  detail: t.Optional(t.String({ description: "Why it is failing (never the password)" })),
  since: t.Optional(t.String({ format: "date-time", description: "PostgreSQL: when the connection was lost (ISO 8601, UTC); Parley reconnects by itself and answers 503 meanwhile" })),
});

const Node = t.Object(
  {
    id: t.String({ description: "node_…: new at every process start" }),
    name: t.String({ description: "--node-name, or the host name" }),
    url: t.Union([t.String(), t.Null()], { description: "Where the other nodes reach it (--node-url, else its public URL)" }),
  },
  { description: "The node (process) that answered" },
);
const LiveNode = t.Object({
  id: t.String(),
  name: t.String(),
  url: t.Union([t.String(), t.Null()]),
  version: t.String(),
  heartbeat_age_ms: t.Integer({ description: "Milliseconds since its last heartbeat (every 3 s; past 15 s it is lost)" }),
});

export const Health = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("degraded")]),
  version: t.String(),
  uptime_seconds: t.Integer(),
  node: Node,
  cluster: t.Object(
    { live_nodes: t.Array(LiveNode, { description: "Oldest first, this one included; empty while the database is away" }) },
    { description: "Every node serving this database that heartbeats within the bound (one on SQLite)" },
  ),
  checks: t.Object({
    database: DatabaseCheck,
    migrations: Check,
    vector_search: Check,
    job_runner: Check,
    offline_recognition: t.Object(
      { status: t.Union([t.Literal("ok"), t.Literal("unavailable")]), detail: t.String() },
      { description: "The built-in recogniser (PocketSphinx, carried by the executable or from the OS); unavailable does not make the instance unhealthy" },
    ),
  }),
});

export function healthRoutes(ctx: HttpContext) {
  return new Elysia().use(authPlugin(ctx)).get(
    "/v1/health",
    ({ set }) => {
      const database = checkDatabase(ctx);
      const migrations = { status: "ok" as const, detail: `${ctx.migrations.total} applied` };
      const vectorSearch = checkVectorSearch(ctx, database);
      const jobRunner = ctx.jobs.isRunning ? { status: "ok" as const } : { status: "failing" as const, detail: "the job runner is not running" };
      const healthy = database.status === "ok" && vectorSearch.status === "ok" && jobRunner.status === "ok";
      if (!healthy) set.status = 503;
      return {
        status: healthy ? ("ok" as const) : ("degraded" as const),
        version: VERSION,
        uptime_seconds: Math.floor((ctx.clock.now() - ctx.startedAt) / 1000),
        ...cluster(ctx, database.status === "ok"),
        checks: { database, migrations, vector_search: vectorSearch, job_runner: jobRunner, offline_recognition: offlineRecognitionCheck() },
      };
    },
    { probe: true, response: { 200: Health, 503: Health }, detail: doc("getHealth", "Liveness and readiness (database, job runner, providers)") },
  );
}

/** This node and the live ones, as the nodes table has them; without the database, this node alone. */
function cluster(ctx: AppContext, databaseUp: boolean) {
  const now = ctx.clock.now();
  let self: NodeRow | undefined;
  let live: NodeRow[] = [];
  try {
    if (databaseUp) [self, live] = [findNode(ctx, ctx.nodeId), liveNodes(ctx)];
  } catch {
    // The database went away since its check: that check's answer already says so.
  }
  return {
    node: { id: ctx.nodeId, name: ctx.config.nodeName, url: self?.url ?? (ctx.config.nodeUrl || null) },
    cluster: { live_nodes: live.map((n) => ({ id: n.id, name: n.name, url: n.url, version: n.version, heartbeat_age_ms: Math.max(0, now - n.heartbeatAt) })) },
  };
}

function offlineRecognitionCheck(): { status: "ok" | "unavailable"; detail: string } {
  const offline = offlineRecognition();
  return { status: offline.available ? "ok" : "unavailable", detail: offline.detail };
}

function checkDatabase(ctx: AppContext): { status: "ok" | "failing"; detail?: string; since?: string } {
  try {
    ctx.sqlite.prepare("SELECT 1").get();
    return { status: "ok" };
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) return { status: "failing", detail: error.message, since: toIso(error.since) };
    return { status: "failing", detail: (error as Error).message };
  }
}

function checkVectorSearch(ctx: AppContext, database: { status: "ok" | "failing"; detail?: string }): { status: "ok" | "failing"; detail?: string } {
  // PostgreSQL carries no vector extension here: the vector stage runs in this process on embeddings it reads from the database.
  if (ctx.dialect === "postgres") return database.status === "ok" ? { status: "ok", detail: "in the Parley process, from PostgreSQL" } : { status: "failing", detail: database.detail };
  try {
    const row = ctx.sqlite.prepare("SELECT vec_version() AS version").get() as { version: string };
    return { status: "ok", detail: `sqlite-vec ${row.version}` };
  } catch (error) {
    return { status: "failing", detail: (error as Error).message };
  }
}

nameSchemas({ Health, LiveNode });
