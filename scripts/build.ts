// Builds the single executable dist/parley: code, migrations (inlined by a macro), the SQLite
// native addon, the sqlite-vec extension and, where the OS has it, PocketSphinx with its model all
// inside; runs with no node_modules and no network.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildDashboard } from "../src/web/dashboard/build.ts";
import { packPocketsphinx } from "../src/voice/speech/builtin/pocketsphinx-bundle.ts";

const root = join(import.meta.dir, "..");
const outfile = process.argv[2] ?? join(root, "dist", "parley");
mkdirSync(join(outfile, ".."), { recursive: true });

const started = performance.now();
// The dashboard is bundled first and put in place of the module that carries it (null from source).
const dashboard = await buildDashboard();
// The recogniser's archive is embedded as a file; its manifest takes the place of the module that carries it (null otherwise).
const pocketsphinx = packPocketsphinx();
const scratch = mkdtempSync(join(tmpdir(), "parley-build-"));
let embeddedPocketsphinx = "export const EMBEDDED_POCKETSPHINX = null;";
if (typeof pocketsphinx !== "string") {
  const archive = join(scratch, "pocketsphinx.zst");
  writeFileSync(archive, pocketsphinx.bytes);
  embeddedPocketsphinx = `import archive from ${JSON.stringify(archive)} with { type: "file" };\nexport const EMBEDDED_POCKETSPHINX = { archive, ...${JSON.stringify(pocketsphinx.manifest)} };`;
}
const result = await Bun.build({
  // The write-behind's, PostgreSQL's, Flite's and PocketSphinx's threads are workers: their entries must be in the
  // executable beside main's. All land at the root of the embedded files, where the bundled
  // `new URL("./<name>-thread.ts", import.meta.url)` of each looks for them.
  entrypoints: [
    join(root, "src", "main.ts"),
    join(root, "src", "core", "write-behind-thread.ts"),
    join(root, "src", "db", "postgres", "postgres-thread.ts"),
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
    {
      name: "embedded-pocketsphinx",
      setup(build) {
        build.onLoad({ filter: /src[\\/]voice[\\/]speech[\\/]builtin[\\/]pocketsphinx-embedded\.ts$/ }, () => ({ contents: embeddedPocketsphinx, loader: "ts" }));
      },
    },
  ],
});
rmSync(scratch, { recursive: true, force: true });
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
if (typeof pocketsphinx === "string") {
  console.log(`offline recogniser not embedded (${pocketsphinx}): the executable uses the OS's PocketSphinx where installed`);
} else {
  const { files, libraries } = pocketsphinx.manifest;
  console.log(`offline recogniser embedded: PocketSphinx, ${libraries.length} libraries and ${files.length - libraries.length} US English model files, ${mib(pocketsphinx.unpackedBytes)} packed into ${mib(pocketsphinx.bytes.length)} added to the executable`);
}
const size = Bun.file(outfile).size;
console.log(`built ${outfile} (${mib(size)}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
