// Run as its own process: `bun body-flood.ts URL PATH SECONDS CLIENTS BODY_FILE [TOKEN]`. Each client posts
// the body again as soon as its answer arrives; prints the count of answers by status as JSON.
import { readFileSync } from "node:fs";

const [url, path, seconds, clients, bodyFile, token] = process.argv.slice(2);
const body = readFileSync(bodyFile, "utf8");
const headers: Record<string, string> = { "content-type": "application/json" };
if (token) headers.authorization = `Bearer ${token}`;
const until = Date.now() + Number(seconds) * 1000;
const statuses: Record<string, number> = {};

async function client(): Promise<void> {
  while (Date.now() < until) {
    try {
      const res = await fetch(url + path, { method: "POST", headers, body });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    } catch {
      statuses.error = (statuses.error ?? 0) + 1;
    }
  }
}

await Promise.all(Array.from({ length: Number(clients) }, client));
process.stdout.write(JSON.stringify(statuses));
