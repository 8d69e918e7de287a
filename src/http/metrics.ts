import { Elysia } from "elysia";
import type { Counter, Histogram, MetricsRegistry } from "../core/metrics.ts";
import { statusOf } from "./audit-trail.ts";
import { findRequestMeta } from "./request-meta.ts";
import type { RouteIndex } from "./route-index.ts";

/** What every path no route matched is counted as: a raw path would put ids, or an attacker's strings, in a label. */
export const UNMATCHED_ROUTE = "unmatched";
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"];
/** The API answers most requests in about a millisecond; uploads and model calls take seconds. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface RouteSeries {
  route: string;
  method: string;
  /** By status class (index 0 is 1xx); 2xx, 4xx and 5xx from the start, so a first error is a rise from 0. */
  byClass: (Counter | undefined)[];
  duration: Histogram;
}

/**
 * Requests by route template (`/v1/agents/:id`), method and status class, and their durations. Each
 * (route, method) pair's series are found once and kept: a request costs two map lookups, a clock
 * read and three additions.
 */
export class HttpMetrics {
  private readonly requests;
  private readonly duration;
  private readonly series = new Map<string, Map<string, RouteSeries>>();
  private templates: Set<string> | null = null;

  constructor(metrics: MetricsRegistry, private readonly routes: RouteIndex) {
    this.requests = metrics.counter("parley_http_requests_total", `API requests answered, by route template ("${UNMATCHED_ROUTE}" when no route matched), method and status class.`, ["route", "method", "status_class"]);
    this.duration = metrics.histogram("parley_http_request_duration_seconds", "Time from a request's arrival to its response being ready, by route template and method.", DURATION_BUCKETS, ["route", "method"]);
  }

  /** Counts a request once, whichever of the after-handle hook and the error handler answers it. */
  record(request: Request, route: string | undefined, status: number): void {
    const meta = findRequestMeta(request);
    if (!meta || meta.measured) return;
    meta.measured = true;
    const series = this.seriesOf(route, request.method);
    const index = status >= 100 && status < 600 ? Math.floor(status / 100) - 1 : 4;
    (series.byClass[index] ??= this.requests.labels(series.route, series.method, STATUS_CLASSES[index])).inc();
    series.duration.observe((performance.now() - meta.receivedAt) / 1000);
  }

  private seriesOf(route: string | undefined, rawMethod: string): RouteSeries {
    // Only the app's own templates become keys, so the maps stay as small as the route table.
    const key = route !== undefined && (this.series.has(route) || this.isTemplate(route)) ? route : UNMATCHED_ROUTE;
    let byMethod = this.series.get(key);
    if (!byMethod) this.series.set(key, (byMethod = new Map()));
    const method = METHODS.has(rawMethod) ? rawMethod : "OTHER";
    let series = byMethod.get(method);
    if (!series) {
      // A group's root route is `/v1/agents/` to the router; the label reads as the URL is written.
      const label = key.length > 1 && key.endsWith("/") ? key.slice(0, -1) : key;
      const counter = (index: number) => this.requests.labels(label, method, STATUS_CLASSES[index]);
      series = { route: label, method, byClass: [undefined, counter(1), undefined, counter(3), counter(4)], duration: this.duration.labels(label, method) };
      byMethod.set(method, series);
    }
    return series;
  }

  private isTemplate(route: string): boolean {
    this.templates ??= new Set(this.routes.all().map((info) => info.path));
    return this.templates.has(route);
  }
}

/** Counts every request a route answered (the error handler counts the ones that failed). */
export function requestMetrics(metrics: HttpMetrics) {
  return new Elysia({ name: "parley.request-metrics" }).onAfterHandle({ as: "global" }, ({ request, route, responseValue, set }) => {
    metrics.record(request, route, statusOf(responseValue, set.status));
  });
}
