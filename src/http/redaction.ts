/**
 * Names of path and query parameters that carry a secret (one-time tokens in e-mailed links and
 * invitations, the realtime session's `?token=`, anything a client might name like a key). Their values
 * are never stored (the audit log) nor logged: a path is kept with `[redacted]` in their place.
 */
export const SECRET_PARAMETERS: ReadonlySet<string> = new Set(["token", "key", "api_key", "secret", "password", "access_token", "refresh_token", "signature", "code"]);

export const REDACTED = "[redacted]";

// Per route template: the positions of its secret segments (null: none), worked out once.
const secretSegments = new Map<string, number[] | null>();

/** The path of a request to `route` (its template, `/v1/x/:token/accept`) with its secret segments replaced. */
export function redactedPath(route: string | undefined, path: string): string {
  if (!route) return path;
  let positions = secretSegments.get(route);
  if (positions === undefined) {
    const found = route.split("/").flatMap((segment, i) => (segment.startsWith(":") && SECRET_PARAMETERS.has(segment.slice(1)) ? [i] : []));
    positions = found.length ? found : null;
    secretSegments.set(route, positions);
  }
  if (!positions) return path;
  const segments = path.split("/");
  for (const i of positions) if (i < segments.length) segments[i] = REDACTED;
  return segments.join("/");
}

/** A query string (without `?`) with the values of its secret parameters replaced. */
export function redactedQuery(query: string): string {
  if (!query) return query;
  return query
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      const name = decodeURIComponentSafe(equals < 0 ? pair : pair.slice(0, equals)).toLowerCase();
      return SECRET_PARAMETERS.has(name) ? `${pair.slice(0, equals < 0 ? pair.length : equals)}=${REDACTED}` : pair;
    })
    .join("&");
}

/** A request URL's path and query as they may be logged. */
export function loggableTarget(route: string | undefined, url: string): string {
  const { pathname, search } = new URL(url);
  const query = redactedQuery(search.slice(1));
  return redactedPath(route, pathname) + (query ? `?${query}` : "");
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}
