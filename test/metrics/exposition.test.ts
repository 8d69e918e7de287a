// The registry's text exposition (Prometheus 0.0.4), judged by Debian's promtool: escaping, HELP and
// TYPE lines, histograms' cumulative buckets, and what happens to a collector that fails.
import { describe, expect, test } from "bun:test";
import { MetricsRegistry } from "../../src/core/metrics.ts";
import { parseSamples, prometheusAvailable, promtoolCheck, valueOf } from "../helpers/prometheus.ts";

describe("the exposition", () => {
  test.skipIf(!prometheusAvailable)("escapes label values and help text as the format says, and promtool reads it back", async () => {
    const registry = new MetricsRegistry();
    const odd = ['quote " inside', "back\\slash", "line\nfeed", "ünïcödé ✓", "", "{braces},=commas"];
    const counter = registry.counter("test_odd_total", 'Help with a backslash \\ and a\nline feed, "quotes" kept.', ["value"]);
    odd.forEach((value, i) => counter.labels(value).inc(i + 1));
    registry.gauge("test_plain", "A gauge without labels.").labels().set(-2.5);
    const text = registry.render();
    expect(text).toContain("# HELP test_odd_total Help with a backslash \\\\ and a\\nline feed, \"quotes\" kept.\n# TYPE test_odd_total counter\n");
    expect(text).toContain('test_odd_total{value="quote \\" inside"} 1\n');
    expect(text).toContain('test_odd_total{value="back\\\\slash"} 2\n');
    expect(text).toContain('test_odd_total{value="line\\nfeed"} 3\n');
    expect(text).toContain("test_plain -2.5\n");
    expect(await promtoolCheck(text)).toEqual({ exitCode: 0, output: "" });
    const samples = parseSamples(text);
    odd.forEach((value, i) => expect(valueOf(samples, "test_odd_total", { value })).toBe(i + 1));
  });

  test.skipIf(!prometheusAvailable)("histograms: cumulative buckets up to +Inf, sum and count, per label set", async () => {
    const registry = new MetricsRegistry();
    const latency = registry.histogram("test_latency_seconds", "Latency.", [0.1, 0.5, 1], ["stage"]);
    for (const v of [0.05, 0.1, 0.3, 0.7, 2, 5]) latency.labels("stt").observe(v);
    latency.labels("tts").observe(0.2);
    const text = registry.render();
    expect(await promtoolCheck(text)).toEqual({ exitCode: 0, output: "" });
    const samples = parseSamples(text);
    const bucket = (stage: string, le: string) => valueOf(samples, "test_latency_seconds_bucket", { stage, le });
    // A value on a bound falls in that bucket (le: less than or equal).
    expect(["0.1", "0.5", "1", "+Inf"].map((le) => bucket("stt", le))).toEqual([2, 3, 4, 6]);
    expect(valueOf(samples, "test_latency_seconds_count", { stage: "stt" })).toBe(6);
    expect(valueOf(samples, "test_latency_seconds_sum", { stage: "stt" })).toBeCloseTo(8.15, 10);
    expect(["0.1", "0.5", "1", "+Inf"].map((le) => bucket("tts", le))).toEqual([0, 1, 1, 1]);
  });

  test("a name asked for again is the same family; another type or other labels under it is a mistake", () => {
    const registry = new MetricsRegistry();
    const first = registry.counter("test_things_total", "Things.", ["kind"]);
    expect(registry.counter("test_things_total", "Things.", ["kind"])).toBe(first);
    expect(() => registry.gauge("test_things_total", "Things.", ["kind"])).toThrow(/already a counter/);
    expect(() => registry.counter("test_things_total", "Things.", ["other"])).toThrow(/already a counter/);
    expect(() => registry.counter("bad-name", "x")).toThrow(/bad metric name/);
    expect(() => registry.histogram("test_h", "x", [1], ["le"])).toThrow(/bad label name/);
    expect(() => first.labels("a", "b")).toThrow(/takes labels kind/);
  });

  test("a collector that throws is counted, keeps its last values, and the scrape goes on", () => {
    const registry = new MetricsRegistry();
    const gauge = registry.gauge("test_read_at_scrape", "Read at scrape.").labels();
    let reads = 0;
    registry.onCollect("flaky", () => {
      if (++reads === 2) throw new Error("database busy");
      gauge.set(reads * 10);
    });
    expect(valueOf(parseSamples(registry.render()), "test_read_at_scrape")).toBe(10);
    const second = parseSamples(registry.render());
    expect(valueOf(second, "test_read_at_scrape")).toBe(10);
    expect(valueOf(second, "parley_metrics_collector_errors_total", { collector: "flaky" })).toBe(1);
    expect(valueOf(parseSamples(registry.render()), "test_read_at_scrape")).toBe(30);
  });
});
