// The process itself: memory and CPU read at each scrape, and how late the event loop runs timers
// (every request, call frame and job waits behind whatever holds it).
import type { MetricsRegistry } from "../core/metrics.ts";
import { VERSION } from "../core/version.ts";

/** How often the event loop's lateness is sampled: a timer this far apart costs nothing measurable. */
const LAG_SAMPLE_MS = 100;
const LAG_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export function processMetrics(metrics: MetricsRegistry): { stop(): void } {
  metrics.gauge("parley_build_info", "Always 1; its label says which Parley is running.", ["version"]).labels(VERSION).set(1);
  metrics.gauge("parley_process_start_time_seconds", "When the process started, in seconds since the Unix epoch.").labels().set(Math.round(performance.timeOrigin / 1000));
  const rss = metrics.gauge("parley_process_resident_memory_bytes", "Resident set size: the process's memory in RAM.").labels();
  const heap = metrics.gauge("parley_process_heap_used_bytes", "JavaScript heap in use.").labels();
  const cpu = metrics.counter("parley_process_cpu_seconds_total", "CPU time the process used, user and system.").labels();
  const lag = metrics.histogram("parley_event_loop_lag_seconds", `How late a timer due every ${LAG_SAMPLE_MS} ms ran: the event loop's lag behind work that held it.`, LAG_BUCKETS).labels();

  let cpuSeen = 0;
  metrics.onCollect("process", () => {
    const memory = process.memoryUsage();
    rss.set(memory.rss);
    heap.set(memory.heapUsed);
    const usage = process.cpuUsage();
    const total = (usage.user + usage.system) / 1e6;
    cpu.inc(Math.max(0, total - cpuSeen));
    cpuSeen = Math.max(cpuSeen, total);
  });

  let timer: ReturnType<typeof setTimeout> | null = null;
  const sample = (due: number) => {
    timer = setTimeout(() => {
      const now = performance.now();
      lag.observe(Math.max(0, now - due) / 1000);
      sample(now + LAG_SAMPLE_MS);
    }, LAG_SAMPLE_MS);
    timer.unref?.();
  };
  sample(performance.now() + LAG_SAMPLE_MS);
  return {
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
