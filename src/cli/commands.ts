import { existsSync, rmSync } from "node:fs";
import { postgresClient } from "../db/postgres-client.ts";
import { closeParley, createParley, type Parley, startServer } from "../server.ts";
import { resolve } from "node:path";
import type { ParsedArgs } from "./args.ts";
import { buildConfig, ConfigError, settingsFromEnv, type Config } from "../config/config.ts";
import { VERSION } from "../core/version.ts";
import { dataDirLayout } from "../config/data-dir.ts";
import { assertCanListen } from "../config/listen-check.ts";
import { lockDataDir } from "../config/serve-lock.ts";
import { restoreBackup, writeBackup } from "./backup.ts";
import { createApiKey } from "../modules/api-keys/service.ts";
import { checkPasswordStrength, hashPassword } from "../modules/auth/passwords.ts";
import { createUser } from "../modules/auth/service.ts";
import { createWorkspaceWithOwner } from "../modules/workspaces/service.ts";
import { findOperatorWorkspace, findWorkspace, insertMember } from "../modules/workspaces/repo.ts";
import { findUserByEmail, insertUser } from "../modules/auth/repo.ts";
import { newId } from "../lib/ids.ts";
import type { Scope } from "../http/permissions.ts";
import { sql } from "drizzle-orm";
import { users } from "../db/schema/index.ts";

const out = (line: string) => process.stdout.write(line + "\n");
const note = (line: string) => process.stderr.write(line + "\n");

function configFrom(args: ParsedArgs): Config {
  return buildConfig({ ...settingsFromEnv(process.env), ...args.settings });
}

/**
 * Only `serve` (and `migrate --init`) create a data dir: every other command works on an existing
 * one, so a mistyped or missing --data-dir is an error rather than a fresh, empty instance.
 */
function contextFrom(args: ParsedArgs, options: { create?: boolean; config?: Config } = {}): Parley {
  const config = options.config ?? configFrom(args);
  const database = dataDirLayout(config.dataDir).database;
  // On PostgreSQL the database is the server's; the data dir keeps the instance key and files.
  if (!options.create && !config.databaseUrl && !existsSync(database)) {
    throw new ConfigError(`no Parley database in ${config.dataDir}: pass --data-dir (or PARLEY_DATA_DIR) of an existing instance, or create one with parley serve or parley migrate --init`);
  }
  return createParley({ config });
}

export async function serve(args: ParsedArgs): Promise<void> {
  const config = configFrom(args);
  // A taken port or a foreign address is said before anything is created on disk.
  assertCanListen(config.host, config.port);
  if (config.metricsAddress) assertCanListen(config.metricsAddress.host, config.metricsAddress.port, "metrics listener: ");
  // A PostgreSQL server that cannot be reached, or is unfit, is said before the data dir is made.
  if (config.databaseUrl) postgresClient().openPostgres(config.databaseUrl).db.close();
  // Before the database is even opened: a second serve must not migrate or sweep a live instance's data.
  const lock = lockDataDir(config.dataDir);
  let ctx: Parley;
  let server;
  try {
    ctx = contextFrom(args, { create: true, config });
  } catch (error) {
    lock.release();
    throw error;
  }
  try {
    // Declared lost by the others: they ended its calls and took its jobs. Exit (non-zero) so a supervisor
    // starts a new node; this one marks nothing stopped, it was not.
    server = startServer(ctx, {
      onLost(lostBy) {
        note(`parley: this node (${ctx.nodeId}) was declared lost by ${lostBy ?? "another node"} after falling silent; exiting to be restarted as a new node`);
        setTimeout(() => process.exit(3), 200); // the cut calls' hang-ups go out first
      },
    });
  } catch (error) {
    lock.release();
    closeParley(ctx);
    throw error;
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      note("second signal: exiting now");
      process.exit(1);
    }
    stopping = true;
    ctx.logger.info("shutting down: finishing in-flight requests", { signal });
    await server.stop();
    closeParley(ctx);
    lock.release();
    ctx.logger.info("stopped cleanly");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  ctx.logger.info(`${ctx.brand.name} ${VERSION} listening on ${server.boundTo}`, { bound_to: server.boundTo, public_url: ctx.publicUrl, data_dir: ctx.config.dataDir });
  note(`Listening on ${server.boundTo}`);
  // Served at / and under --dashboard-url's path: the one the operator named is the one to open.
  note(`Dashboard: ${ctx.config.dashboardUrl || ctx.publicUrl}/`);
  note(`API:       ${ctx.publicUrl}/v1   (OpenAPI: ${ctx.publicUrl}/openapi.json)`);
  if (server.metricsUrl) note(`Metrics:   ${server.metricsUrl}${ctx.config.metricsToken ? "   (Authorization: Bearer <--metrics-token>)" : ""}`);
  note(`Data dir:  ${ctx.config.dataDir}`);
  const userCount = ctx.db.select({ n: sql<number>`count(*)` }).from(users).get()!.n;
  if (userCount === 0) note(`No users yet: register at POST ${ctx.publicUrl}/v1/auth/register, or: parley user create --email you@example.com --password-stdin --operator`);
}

export function migrate(args: ParsedArgs): void {
  const ctx = contextFrom(args, { create: args.flags.init === true });
  const { applied, total } = ctx.migrations;
  out(applied.length ? `applied ${applied.length} migration(s): ${applied.join(", ")}` : `database is up to date (${total} migrations)`);
  closeParley(ctx);
}

export function version(): void {
  out(`parley ${VERSION}`);
}

const ON_POSTGRES_BACKUP =
  "backup and restore copy an SQLite instance; on PostgreSQL, back the database up with pg_dump and keep the data dir's instance.key and files (README: Running on PostgreSQL)";

/** One archive with the database (online copy: consistent while the server writes), recordings and, when asked, the key. */
export async function backup(args: ParsedArgs): Promise<void> {
  const target = args.flags.out;
  if (typeof target !== "string" || !target) throw new ConfigError("backup needs --out FILE");
  const path = resolve(target);
  if (existsSync(path)) throw new ConfigError(`${path} already exists; choose a new file`);
  if (configFrom(args).databaseUrl) throw new ConfigError(ON_POSTGRES_BACKUP);
  const ctx = contextFrom(args);
  try {
    const manifest = await writeBackup(ctx, path, { includeKey: args.flags["include-key"] === true, progress: note });
    const rows = Object.values(manifest.tables).reduce((sum, n) => sum + n, 0);
    note(`backup: 100%: ${manifest.files.length} files, ${rows} rows`);
    if (!manifest.includes_key) note("backup: the instance key is not included (--include-key adds it); without it a restored copy cannot read stored provider credentials");
    out(`backup written to ${path}`);
  } catch (error) {
    rmSync(path, { force: true });
    throw error;
  } finally {
    closeParley(ctx);
  }
}

/** Unpacks a backup into a new data dir and checks every file's checksum and every table's rows. */
export function restore(args: ParsedArgs): void {
  const archive = args.positionals[1];
  if (!archive) throw new ConfigError("restore needs the archive: parley restore FILE --data-dir DIR");
  const config = configFrom(args);
  if (config.databaseUrl) throw new ConfigError(ON_POSTGRES_BACKUP);
  const manifest = restoreBackup(resolve(archive), config.dataDir, note);
  const rows = Object.values(manifest.tables).reduce((sum, n) => sum + n, 0);
  note(`restore: ${manifest.files.length} files and ${rows} rows checked against the manifest`);
  if (!manifest.includes_key) note("restore: the backup has no instance key: a new one is made at first start; stored provider credentials must be entered again");
  out(`restored ${manifest.created_at} backup (Parley ${manifest.version}) into ${config.dataDir}; start it with parley serve --data-dir ${config.dataDir}`);
}

export async function userCreate(args: ParsedArgs): Promise<void> {
  const email = args.flags.email;
  if (typeof email !== "string" || !/^[^@\s]+@[^@\s]+$/.test(email)) throw new ConfigError("user create needs --email with an e-mail address");
  if (args.flags["password-stdin"] !== true) throw new ConfigError("user create needs --password-stdin (the password is read from standard input, never from the command line)");
  const password = (await Bun.stdin.text()).replace(/\r?\n$/, "");
  try {
    checkPasswordStrength("password", password);
  } catch (error) {
    throw new ConfigError(`password ${(error as Error).message.replace(/^password: /, "")}`);
  }
  const name = typeof args.flags.name === "string" ? args.flags.name : null;
  const operator = args.flags.operator === true;
  const ctx = contextFrom(args);
  try {
    if (findUserByEmail(ctx.db, email)) throw new ConfigError(`a user with e-mail ${email.toLowerCase()} already exists`);
    const passwordHash = await hashPassword(password);
    if (!operator) {
      const { user, workspace } = createUser(ctx, { email, passwordHash, name });
      out(`created user ${user.id} (${user.email}) with workspace ${workspace.id}`);
      return;
    }
    // The operator workspace is the reseller's own: created with its first operator, joined by later ones.
    const result = ctx.sqlite.transaction(() => {
      const now = ctx.clock.now();
      const userId = newId("usr");
      insertUser(ctx.db, { id: userId, email, name, passwordHash, createdAt: now, updatedAt: now });
      const existing = findOperatorWorkspace(ctx.db);
      if (existing) {
        insertMember(ctx.db, { id: newId("mem"), workspaceId: existing.id, userId, role: "owner", createdAt: now });
        return { userId, workspaceId: existing.id };
      }
      const workspace = createWorkspaceWithOwner(ctx, userId, { name: "Operator" }, { operator: true });
      return { userId, workspaceId: workspace.id };
    })();
    out(`created operator ${result.userId} (${email.toLowerCase()}), owner of operator workspace ${result.workspaceId}`);
  } finally {
    closeParley(ctx);
  }
}

export function keyCreate(args: ParsedArgs): void {
  const workspaceId = args.flags.workspace;
  const scope = args.flags.scope;
  if (typeof workspaceId !== "string") throw new ConfigError("key create needs --workspace ws_…");
  if (scope !== "read-only" && scope !== "write" && scope !== "admin") throw new ConfigError("key create needs --scope read-only, write or admin");
  const mode = args.flags.mode ?? "live";
  if (mode !== "live" && mode !== "test") throw new ConfigError("--mode must be live or test");
  const ctx = contextFrom(args);
  try {
    if (!findWorkspace(ctx.db, workspaceId)) throw new ConfigError(`no workspace ${workspaceId}`);
    const name = typeof args.flags.name === "string" ? args.flags.name : `CLI key (${scope})`;
    const { row, secret } = createApiKey(ctx, workspaceId, { name, scope: scope as Scope, mode }, null);
    note(`created ${row.id} "${row.name}" (${row.scope}) in ${workspaceId}; the secret is shown only now:`);
    out(secret);
  } finally {
    closeParley(ctx);
  }
}
