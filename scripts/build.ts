// Builds the single executable dist/parley: code, migrations (inlined by a macro), the SQLite
// native addon and the sqlite-vec extension all inside; runs with no node_modules and no network.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildDashboard } from "../src/web/dashboard/build.ts";

const root = join(import.meta.dir, "..");
const outfile = process.argv[2] ?? join(root, "dist", "parley");
mkdirSync(join(outfile, ".."), { recursive: true });

const started = performance.now();
// The dashboard is bundled first and put in place of the module that carries it (null from source).
const dashboard = await buildDashboard();
const result = await Bun.build({
  // The write-behind's, Flite's and PocketSphinx's threads are workers: their entries must be in the
  // executable beside main's. All land at the root of the embedded files, where the bundled
  // `new URL("./<name>-thread.ts", import.meta.url)` of each looks for them.
  entrypoints: [
    join(root, "src", "main.ts"),
    join(root, "src", "core", "write-behind-thread.ts"),
    join(root, "src", "voice", "speech", "builtin", "flite-thread.ts"),
    join(root, "src", "voice", "speech", "builtin", "pocketsphinx-thread.ts"),
  ],
  naming: { entry: "[name].[ext]" },
  compile: { outfile },
  minify: { syntax: true, whitespace: true, identifiers: false },
  sourcemap: "linked",
  target: "bun",
  plugins: [
    {
      name: "embedded-dashboard",
      setup(build) {
        build.onLoad({ filter: /src[\\/]web[\\/]dashboard[\\/]embedded\.ts$/ }, () => ({ contents: `export const EMBEDDED_DASHBOARD = ${JSON.stringify(dashboard)};`, loader: "ts" }));
      },
    },
  ],
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
const size = Bun.file(outfile).size;
console.log(`built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
