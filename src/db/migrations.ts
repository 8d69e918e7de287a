import { readMigrationsFolder } from "./embedded-migrations.macro.ts" with { type: "macro" };
import type { EmbeddedMigration } from "./embedded-migrations.macro.ts";

/** The migrations in journal order, read from migrations/ when the code is bundled or loaded. */
export const MIGRATIONS: EmbeddedMigration[] = readMigrationsFolder();

/** PostgreSQL's: a baseline equal to SQLite's schema at the time, then each change in both dialects. */
export const POSTGRES_MIGRATIONS: EmbeddedMigration[] = readMigrationsFolder("postgres");
