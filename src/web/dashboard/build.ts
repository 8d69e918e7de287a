// Bundles the dashboard (src/dashboard: Preact + the TypeScript client library) for browsers: one
// minified script and one stylesheet, named by content hash. scripts/build.ts embeds the result in
// the binary; from source the server runs this once, on the first request for the dashboard.
import { basename, join } from "node:path";

export interface DashboardBuild {
  /** File names (`main-<hash>.js`, `styles-<hash>.css`) and their text. */
  files: Record<string, string>;
  script: string;
  style: string;
}

const SOURCE = join(import.meta.dir, "..", "..", "dashboard");

export async function buildDashboard(): Promise<DashboardBuild> {
  const result = await Bun.build({
    entrypoints: [join(SOURCE, "main.tsx"), join(SOURCE, "styles.css")],
    target: "browser",
    format: "esm",
    minify: true,
    naming: "[name]-[hash].[ext]",
    jsx: { runtime: "automatic", importSource: "preact", development: false },
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) throw new AggregateError(result.logs, `the dashboard did not build: ${result.logs.join("\n")}`);
  const files: Record<string, string> = {};
  for (const output of result.outputs) files[basename(output.path)] = await output.text();
  const names = Object.keys(files);
  const script = names.find((name) => name.endsWith(".js"));
  const style = names.find((name) => name.endsWith(".css"));
  if (!script || !style) throw new Error(`the dashboard build lacks its script or stylesheet: ${names.join(", ")}`);
  return { files, script, style };
}
