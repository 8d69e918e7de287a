import { defineConfig } from "drizzle-kit";

// Migrations are generated SQL, committed, and embedded into the executable (src/db/migrations.ts).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema/index.ts",
  out: "./migrations",
});
