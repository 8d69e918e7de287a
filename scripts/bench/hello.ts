// Baseline for api.ts: the cheapest possible Bun.serve, started as its own process.
// Usage: bun scripts/bench/hello.ts <port>
const port = Number(process.argv[2]);

Bun.serve({
  hostname: "127.0.0.1",
  port,
  development: false,
  fetch: () => Response.json({ status: "ok" }),
});
