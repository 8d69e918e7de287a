// A real Prometheus (Debian's `prometheus`) scrapes Parley's metrics listener on loopback every second,
// with the bearer token, and its query API answers what Parley reported: a live simulated call.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { waitForCall } from "../helpers/call-api.ts";
import { serverWithUser } from "../helpers/fixtures.ts";
import { prometheusAvailable, startPrometheus, type PrometheusServer } from "../helpers/prometheus.ts";

const TOKEN = "prometheus-test-token-0123456789";
const s = serverWithUser("prometheus", { settings: { metricsListen: "127.0.0.1:0", metricsToken: TOKEN } });
const opts = () => ({ token: s.user.token });

let prometheus: PrometheusServer | null = null;

beforeAll(async () => {
  if (prometheusAvailable) prometheus = await startPrometheus(new URL(s.server.metricsUrl!).host, TOKEN);
}, 20_000);
afterAll(() => prometheus?.stop());

/** Polls an instant query until `ok` holds for its result (each scrape is a second apart). */
async function until(promql: string, ok: (values: number[]) => boolean, timeoutMs = 15_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const values = (await prometheus!.query(promql)).map((r) => r.value);
    if (ok(values)) return values;
    if (Date.now() > deadline) throw new Error(`${promql} still ${JSON.stringify(values)} after ${timeoutMs} ms`);
    await Bun.sleep(200);
  }
}

describe("Prometheus scraping Parley", () => {
  test.skipIf(!prometheusAvailable)("sees the target up, and a live call's gauge at 1 while it talks and 0 once it ends", async () => {
    // Prometheus hands new targets to its scrapers after about 5 s: the call is set up meanwhile.
    const agent = (await s.server.api.post("/v1/agents", { name: "Scraped", first_message: "Hello." }, opts())).body;
    const number = (await s.server.api.post("/v1/phone-numbers/buy", { area_code: "415" }, opts())).body;
    await s.server.api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id }, opts());
    const call = (await s.server.api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550160", simulation: { ring_ms: 0 } }, opts())).body;
    await waitForCall(s.server.api, s.user.token, call.id, (c) => c.status === "in_progress", 10_000);

    expect(await until('up{job="parley"}', (v) => v[0] === 1)).toEqual([1]);
    expect(await until('parley_calls_live{carrier="simulated"}', (v) => v[0] === 1)).toEqual([1]);
    // The other kinds are there at 0, and the request that placed the call is counted by its template.
    expect(await until('parley_calls_live{carrier="sip"}', (v) => v.length === 1)).toEqual([0]);
    expect(await until('parley_http_requests_total{route="/v1/calls/outbound",method="POST",status_class="2xx"}', (v) => v.length === 1)).toEqual([1]);

    expect((await s.server.api.post(`/v1/calls/${call.id}/hangup`, undefined, opts())).status).toBe(202);
    await waitForCall(s.server.api, s.user.token, call.id, (c) => c.status === "completed", 10_000);
    expect(await until('parley_calls_live{carrier="simulated"}', (v) => v[0] === 0)).toEqual([0]);
    expect(await until('parley_calls_ended_total{status="completed",end_reason="agent_hangup"}', (v) => v[0] === 1)).toEqual([1]);
  }, 45_000);
});
