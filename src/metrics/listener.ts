// GET /metrics on an address of its own (--metrics-listen), never on the API's port: the metrics then
// share none of the public port's exposure, rate limits or credentials, and a firewall or a loopback
// bind keeps them private. An optional bearer token (--metrics-token) guards a listener that must be
// reachable from another host.
import type { MetricsRegistry } from "../core/metrics.ts";
import { ConfigError } from "../config/config.ts";
import { listenError } from "../config/listen-check.ts";
import { problemBody, problemResponse, type ErrorCode } from "../http/errors.ts";
import { safeEqual } from "../lib/crypto.ts";
import { newId } from "../lib/ids.ts";
import { cidrContains, parseCidr, parseIp } from "../lib/ip.ts";

export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export interface MetricsListener {
  /** http://host:port/metrics, with the port the kernel gave. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export function startMetricsListener(metrics: MetricsRegistry, address: { host: string; port: number }, token: string): MetricsListener {
  const expected = token ? `Bearer ${token}` : "";
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: address.host,
      port: address.port,
      reusePort: false,
      development: false,
      fetch(request) {
        const path = new URL(request.url).pathname;
        if (path !== "/metrics") return problem("not_found", `no ${path} here: this listener serves only GET /metrics`);
        if (request.method !== "GET" && request.method !== "HEAD") return problem("method_not_allowed", `${request.method} is not allowed on /metrics; use GET`, { allow: "GET, HEAD" });
        if (expected && !safeEqual(request.headers.get("authorization") ?? "", expected)) {
          return problem("unauthorized", "the metrics need Authorization: Bearer <--metrics-token>", { "www-authenticate": 'Bearer realm="metrics"' });
        }
        const text = metrics.render();
        const headers: Record<string, string> = { "content-type": EXPOSITION_CONTENT_TYPE, "cache-control": "no-store" };
        // Prometheus asks for gzip: a scrape of a busy instance shrinks about tenfold.
        if (/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) {
          headers["content-encoding"] = "gzip";
          return new Response(Bun.gzipSync(text), { headers });
        }
        return new Response(text, { headers });
      },
    });
  } catch (error) {
    const known = listenError(error, address.host, address.port);
    throw known ? new ConfigError(`metrics listener: ${known.message}`) : error;
  }
  const host = address.host.includes(":") ? `[${address.host}]` : address.host === "0.0.0.0" ? "127.0.0.1" : address.host === "::" ? "[::1]" : address.host;
  return {
    url: `http://${host}:${server.port}/metrics`,
    port: server.port!,
    stop: () => server.stop(true),
  };
}

const LOOPBACK = [parseCidr("127.0.0.0/8")!, parseCidr("::1/128")!];

/** Whether only this machine can reach an address (a name other than localhost may resolve anywhere). */
export function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  const ip = parseIp(host);
  return ip !== null && LOOPBACK.some((range) => cidrContains(range, ip));
}

function problem(code: ErrorCode, detail: string, headers: Record<string, string> = {}): Response {
  return problemResponse(problemBody(code, detail, newId("req")), headers);
}
