// Regenerates the client libraries' generated files from the OpenAPI document of a real server:
//   bun scripts/sdk/generate.ts            write them
//   bun scripts/sdk/generate.ts --check    exit 1 if any differs (CI: the libraries match the API)
//   bun scripts/sdk/generate.ts --url U    read the document from a running server instead
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { sdkFiles, fetchOpenApi } from "./files.ts";

const args = process.argv.slice(2);
const check = args.includes("--check");
const urlAt = args.indexOf("--url");
const root = join(import.meta.dir, "..", "..");

const doc = await fetchOpenApi(urlAt >= 0 ? args[urlAt + 1] : undefined);
const files = sdkFiles(doc);
const stale: string[] = [];
for (const [path, content] of files) {
  const target = join(root, path);
  let current: string | null = null;
  try {
    current = readFileSync(target, "utf8");
  } catch {}
  if (current === content) continue;
  stale.push(path);
  if (!check) {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}
if (check && stale.length) {
  console.error(`generated files differ from the API (run bun scripts/sdk/generate.ts):\n  ${stale.join("\n  ")}`);
  process.exit(1);
}
console.log(stale.length ? `${check ? "stale" : "wrote"}: ${stale.join(", ")}` : `${files.size} generated files up to date`);
