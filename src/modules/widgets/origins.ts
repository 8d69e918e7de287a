// Which web pages may talk to a widget: its `allowed_origins`, each an exact origin
// (`https://shop.example.com`, `http://localhost:3000`) or every subdomain of one (`https://*.example.com`).
import { isIP } from "node:net";
import { domainToASCII } from "node:url";

interface Origin {
  scheme: "http" | "https";
  /** Lower case, punycode; IPv6 in brackets. Without the `*.` of a wildcard. */
  host: string;
  /** Empty for the scheme's default port. */
  port: string;
  wildcard: boolean;
}

const DEFAULT_PORT = { http: "80", https: "443" } as const;
const SHAPE = /^(https?):\/\/([^/?#@]*?)(?::(\d*))?$/;
const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;
export const ORIGIN_EXAMPLE = "an origin such as https://shop.example.com, http://localhost:3000 or https://*.example.com";

/** An entry of `allowed_origins` in its stored form, or why it is not one. */
export function normalizeAllowedOrigin(raw: string): { origin: string } | { error: string } {
  const parsed = parse(raw.trim(), true);
  return "error" in parsed ? parsed : { origin: format(parsed) };
}

/** The `Origin` header of a request in the form allowed origins are stored in (null: not a web origin, e.g. `null`). */
export function normalizeRequestOrigin(header: string | null): string | null {
  if (!header) return null;
  const parsed = parse(header.trim(), false);
  return "error" in parsed ? null : format(parsed);
}

/** The origin of a base URL (the instance's public URL), normalized like the rest. */
export function originOfUrl(url: string): string | null {
  try {
    return normalizeRequestOrigin(new URL(url).origin);
  } catch {
    return null;
  }
}

/**
 * Whether a request origin (normalized) is one of `allowed`: equal to an exact entry, or a subdomain at
 * any depth of a wildcard entry (never the bare domain), with the same scheme and port.
 */
export function originAllowed(allowed: readonly string[], origin: string | null): boolean {
  if (!origin) return false;
  const request = parse(origin, false);
  if ("error" in request) return false;
  for (const entry of allowed) {
    if (entry === origin) return true;
    const pattern = parse(entry, true);
    if ("error" in pattern || !pattern.wildcard) continue;
    if (pattern.scheme === request.scheme && pattern.port === request.port && request.host.endsWith(`.${pattern.host}`)) return true;
  }
  return false;
}

function format(origin: Origin): string {
  return `${origin.scheme}://${origin.wildcard ? "*." : ""}${origin.host}${origin.port ? `:${origin.port}` : ""}`;
}

function parse(raw: string, wildcardAllowed: boolean): Origin | { error: string } {
  if (raw === "*") return { error: "a bare * would let every web site use the widget: list your sites' origins, or https://*.example.com for the subdomains of one" };
  const value = raw.toLowerCase();
  if (!/^https?:\/\//.test(value)) return { error: `must start with https:// or http:// (${ORIGIN_EXAMPLE})` };
  const match = SHAPE.exec(value);
  if (!match) {
    if (/^https?:\/\/[^/?#]*@/.test(value)) return { error: "must not contain a user name or password" };
    return { error: `must be scheme, host and optional port only: no path, query, fragment or trailing slash (${ORIGIN_EXAMPLE})` };
  }
  const scheme = match[1] as "http" | "https";
  let host = match[2];
  const port = match[3] ?? "";
  if (match[3] !== undefined && !/^\d{1,5}$/.test(port)) return { error: "has an empty or invalid port" };
  if (port && (Number(port) < 1 || Number(port) > 65535)) return { error: `port ${port} is out of range (1-65535)` };
  let wildcard = false;
  if (host.startsWith("*.")) {
    if (!wildcardAllowed) return { error: "is not a request origin" };
    wildcard = true;
    host = host.slice(2);
  }
  if (host.includes("*")) return { error: "the only wildcard allowed is a leading *. for subdomains (https://*.example.com)" };
  if (!host) return { error: `has no host (${ORIGIN_EXAMPLE})` };
  if (host.startsWith("[")) {
    if (!host.endsWith("]") || isIP(host.slice(1, -1)) !== 6) return { error: "has an invalid IPv6 address" };
    if (wildcard) return { error: "a wildcard needs a domain name, not an IP address" };
  } else if (/^[\d.]+$/.test(host)) {
    if (isIP(host) !== 4) return { error: "has an invalid IPv4 address" };
    if (wildcard) return { error: "a wildcard needs a domain name, not an IP address" };
  } else {
    // Browsers send internationalised names in their punycode form.
    const ascii = domainToASCII(host);
    if (!ascii || ascii.length > 253 || ascii.endsWith(".") || !ascii.split(".").every((label) => LABEL.test(label))) return { error: `has an invalid host name ${host}` };
    host = ascii;
    if (wildcard && !host.includes(".")) return { error: "a wildcard needs a registered domain under it: https://*.example.com, not https://*.com" };
  }
  return { scheme, host, port: port === DEFAULT_PORT[scheme] ? "" : port, wildcard };
}
