import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConfig } from "../../src/config/config.ts";
import { systemClock } from "../../src/core/clock.ts";
import { createLogger } from "../../src/core/logger.ts";
import { closeParley, createParley, startServer } from "../../src/server.ts";
import { sdkOperations } from "./model.ts";
import { renderPython } from "./python.ts";
import { renderTypeScript } from "./typescript.ts";

type Json = Record<string, any>;

/** Every generated file of both libraries (path from the repository root → content). */
export function sdkFiles(doc: Json): Map<string, string> {
  const operations = sdkOperations(doc);
  return new Map([...renderTypeScript(doc, operations), ...renderPython(doc, operations)]);
}

/** The document as a real server serves it: from `url`, or from a server started here on a scratch data dir. */
export async function fetchOpenApi(url?: string): Promise<Json> {
  if (url) return (await (await fetch(new URL("/openapi.json", url))).json()) as Json;
  const dataDir = mkdtempSync(join(tmpdir(), "parley-sdk-"));
  const ctx = createParley({ config: buildConfig({ host: "127.0.0.1", port: "0", dataDir }), clock: systemClock, logger: createLogger("error") });
  const server = startServer(ctx);
  try {
    return (await (await fetch(`${server.url}/openapi.json`)).json()) as Json;
  } finally {
    await server.stop();
    closeParley(ctx);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
