// Webhook receiver for the webhooks benchmark, in its own process. Each body carries data.sent_at
// (epoch ms with sub-ms precision from the sender); the receiver keeps enqueue→delivery latencies.
// GET /stats → { received, latencies: { p50, p99, max } }; POST /reset clears.
const listenPort = Number(process.argv[2] ?? 0);
let latencies: number[] = [];
let received = 0;

const now = () => performance.timeOrigin + performance.now();

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: listenPort,
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/stats") {
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      return Response.json({ received, latencies: { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 } });
    }
    if (url.pathname === "/reset") {
      latencies = [];
      received = 0;
      return new Response("reset");
    }
    const body = (await request.json()) as { data?: { sent_at?: number } };
    received++;
    if (body.data?.sent_at) latencies.push(now() - body.data.sent_at);
    return new Response(null, { status: 204 });
  },
});
process.stdout.write(`${server.port}\n`);
