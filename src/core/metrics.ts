// The process's metrics, kept in memory and written out in the Prometheus text exposition format
// (version 0.0.4) when scraped. Counters, gauges and histograms with fixed buckets, each a family of
// series told apart by label values. Label values must come from closed sets (a route template, a
// status class, a job type), never from ids or tenant data: every distinct value is a series kept
// for the life of the process.

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export type MetricType = "counter" | "gauge" | "histogram";

export class Counter {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
}

export class Gauge {
  value = 0;
  set(value: number): void {
    this.value = value;
  }
  inc(by = 1): void {
    this.value += by;
  }
}

export class Histogram {
  /** Observations per bucket (not cumulative: the exposition sums them), the last one for +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

interface Series<T> {
  /** `{a="x",b="y"}` without its closing brace ("" when the family has no labels), written once. */
  labels: string;
  child: T;
}

/** One metric: its name, help and type, and a series per combination of label values seen. */
export abstract class Family<T> {
  private readonly series = new Map<string, Series<T>>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: MetricType,
    readonly labelNames: readonly string[],
    private readonly create: () => T,
  ) {
    if (!METRIC_NAME.test(name)) throw new Error(`bad metric name ${name}`);
    for (const label of labelNames) if (!LABEL_NAME.test(label) || label.startsWith("__") || label === "le") throw new Error(`bad label name ${label} on ${name}`);
    // A family without labels has its one series from the start: 0 is a value worth scraping.
    if (labelNames.length === 0) this.labels();
  }

  /** The series of these label values (in the order of labelNames), created at first use. */
  labels(...values: string[]): T {
    const key = values.length === 1 ? values[0] : values.join("\u0000");
    let found = this.series.get(key);
    if (!found) {
      if (values.length !== this.labelNames.length) throw new Error(`${this.name} takes labels ${this.labelNames.join(", ")}, got ${values.length} values`);
      found = { labels: values.length ? `{${values.map((value, i) => `${this.labelNames[i]}="${escapeLabelValue(value)}"`).join(",")}` : "", child: this.create() };
      this.series.set(key, found);
    }
    return found.child;
  }

  /** Forgets every series (gauges a collector sets afresh at each scrape). */
  reset(): void {
    this.series.clear();
    if (this.labelNames.length === 0) this.labels();
  }

  write(out: string[]): void {
    out.push(`# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} ${this.type}\n`);
    for (const { labels, child } of this.series.values()) this.writeSeries(out, labels, child);
  }

  protected abstract writeSeries(out: string[], labels: string, child: T): void;
}

export class CounterFamily extends Family<Counter> {
  constructor(name: string, help: string, labelNames: readonly string[]) {
    super(name, help, "counter", labelNames, () => new Counter());
  }
  protected writeSeries(out: string[], labels: string, child: Counter) {
    out.push(`${this.name}${labels}${labels ? "}" : ""} ${formatValue(child.value)}\n`);
  }
}

export class GaugeFamily extends Family<Gauge> {
  constructor(name: string, help: string, labelNames: readonly string[]) {
    super(name, help, "gauge", labelNames, () => new Gauge());
  }
  protected writeSeries(out: string[], labels: string, child: Gauge) {
    out.push(`${this.name}${labels}${labels ? "}" : ""} ${formatValue(child.value)}\n`);
  }
}

export class HistogramFamily extends Family<Histogram> {
  constructor(name: string, help: string, buckets: readonly number[], labelNames: readonly string[]) {
    const bounds = [...buckets].sort((a, b) => a - b);
    if (bounds.length === 0 || bounds.some((b, i) => !Number.isFinite(b) || b === bounds[i - 1])) throw new Error(`${name}: buckets must be distinct finite numbers`);
    super(name, help, "histogram", labelNames, () => new Histogram(bounds));
  }
  protected writeSeries(out: string[], labels: string, child: Histogram) {
    const open = labels ? `${labels},` : "{";
    const close = labels ? "}" : "";
    let cumulative = 0;
    for (let i = 0; i < child.bounds.length; i++) {
      cumulative += child.counts[i];
      out.push(`${this.name}_bucket${open}le="${formatValue(child.bounds[i])}"} ${formatValue(cumulative)}\n`);
    }
    out.push(`${this.name}_bucket${open}le="+Inf"} ${formatValue(child.count)}\n`);
    out.push(`${this.name}_sum${labels}${close} ${formatValue(child.sum)}\n${this.name}_count${labels}${close} ${formatValue(child.count)}\n`);
  }
}

/** Work done just before a scrape is written (gauges read from the database or memory at that moment). */
export type Collector = () => void;

/** Every metric of one Parley (one per context: tests run several in one process). */
export class MetricsRegistry {
  private readonly families = new Map<string, Family<unknown>>();
  private readonly collectors: { name: string; collect: Collector }[] = [];
  private readonly collectorErrors = this.counter("parley_metrics_collector_errors_total", "Scrape-time collectors that failed (their gauges keep their last values), by collector.", ["collector"]);

  counter(name: string, help: string, labelNames: readonly string[] = []): CounterFamily {
    return this.family(name, "counter", labelNames, () => new CounterFamily(name, help, labelNames));
  }

  gauge(name: string, help: string, labelNames: readonly string[] = []): GaugeFamily {
    return this.family(name, "gauge", labelNames, () => new GaugeFamily(name, help, labelNames));
  }

  histogram(name: string, help: string, buckets: readonly number[], labelNames: readonly string[] = []): HistogramFamily {
    return this.family(name, "histogram", labelNames, () => new HistogramFamily(name, help, buckets, labelNames));
  }

  /** Runs `collect` before every scrape; one that throws is counted and the scrape goes on without it. */
  onCollect(name: string, collect: Collector): void {
    this.collectors.push({ name, collect });
  }

  /** The exposition: collectors run first, then every family in name order. */
  render(): string {
    for (const { name, collect } of this.collectors) {
      try {
        collect();
      } catch {
        this.collectorErrors.labels(name).inc();
      }
    }
    const out: string[] = [];
    for (const name of [...this.families.keys()].sort()) this.families.get(name)!.write(out);
    return out.join("");
  }

  /** The same name asked for twice is the same family (features declare theirs where they record). */
  private family<F extends Family<unknown>>(name: string, type: MetricType, labelNames: readonly string[], create: () => F): F {
    const existing = this.families.get(name);
    if (existing) {
      if (existing.type !== type || existing.labelNames.join() !== labelNames.join()) throw new Error(`metric ${name} is already a ${existing.type} with labels [${existing.labelNames.join(", ")}]`);
      return existing as F;
    }
    const family = create();
    this.families.set(name, family);
    return family;
  }
}

/** `1`, `0.25`, `+Inf`, `NaN`: Go's ParseFloat reads every number JavaScript writes. */
export function formatValue(value: number): string {
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

/** Label values escape backslash, double quote and line feed (0.0.4). */
export function escapeLabelValue(value: string): string {
  return /[\\"\n]/.test(value) ? value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") : value;
}

/** HELP text escapes backslash and line feed. */
export function escapeHelp(help: string): string {
  return help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}
