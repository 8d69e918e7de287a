// A small history router: paths under the dashboard's base path (from the page's <meta>), links that
// navigate without reloading, and patterns with `:name` parameters.
import { useEffect, useState } from "preact/hooks";
import { BASE_META } from "../paths.ts";

const base = document.querySelector(`meta[name="${BASE_META}"]`)?.getAttribute("content") ?? "";
const listeners = new Set<() => void>();

export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : location.pathname;
  return { path: path.replace(/\/+$/, "") || "/", query: new URLSearchParams(location.search) };
}

/** The URL of a dashboard path, for links and the address bar. */
export function href(path: string): string {
  return base + path;
}

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  history[options.replace ? "replaceState" : "pushState"](null, "", href(path));
  for (const listener of listeners) listener();
}

addEventListener("popstate", () => {
  for (const listener of listeners) listener();
});

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    update(); // a child's effect (a redirect) may have moved on before this one ran
    return () => void listeners.delete(update);
  }, []);
  return location;
}

/** The parameters of `path` under `pattern` (`/invitations/:token`), or null when it does not match. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const source = pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:(\w+)/g, (_, name: string) => (names.push(name), "([^/]+)"));
  const found = new RegExp(`^${source}$`).exec(path);
  if (!found) return null;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1])]));
}

/** A path and query as one string, for `next=` parameters. */
export function withQuery(path: string, query: Record<string, string | null | undefined>): string {
  const params = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => !!entry[1]));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}
