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

const doc = docsFor("Health");

const Check = t.Object({ status: t.Union([t.Literal("ok"), t.Literal("failing")]), detail: t.Optional(t.String()) });
const DatabaseCheck = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("failing")]),
  detail: t.Optional(t.String({ description: "Why it is failing (never the password)" })),
  since: t.Optional(t.String({ format: "date-time", description: "PostgreSQL: when the connection was lost (ISO 8601, UTC); Parley reconnects by itself and answers 503 meanwhile" })),
});

export const Health = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("degraded")]),
  version: t.String(),
  uptime_seconds: t.Integer(),
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
        checks: { database, migrations, vector_search: vectorSearch, job_runner: jobRunner, offline_recognition: offlineRecognitionCheck() },
      };
    },
    { probe: true, response: { 200: Health, 503: Health }, detail: doc("getHealth", "Liveness and readiness (database, job runner, providers)") },
  );
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

nameSchemas({ Health });
