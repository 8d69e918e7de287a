import { isIP } from "node:net";
import { hostname } from "node:os";
import { resolve } from "node:path";
import { parseCidr, type Cidr } from "../lib/ip.ts";
import { parseDatabaseUrl } from "../db/postgres/url.ts";
import { OPTIONS, type ConfigValues, type OptionSpec } from "./options.ts";

/** The resolved configuration every part of the server reads. */
export interface Config extends Omit<ConfigValues, "trustedProxies"> {
  trustedProxies: Cidr[];
  /** Where the metrics listener binds (--metrics-listen), or null when there is none. */
  metricsAddress: { host: string; port: number } | null;
  /** Limits from DESIGN.md; not operator options but kept here so tests can see one place. */
  jsonBodyLimitBytes: number;
  /** Outgoing webhook time-out (DESIGN.md: 10 s); tests shorten it. */
  webhookTimeoutMs: number;
  /** Check every response against its documented schema at run time: on in tests, off in production (speed). */
  checkResponses: boolean;
}

import { ConfigError } from "./errors.ts";
export { ConfigError };

export type RawSettings = Partial<Record<keyof ConfigValues, string | boolean>>;

const LOG_LEVELS = ["debug", "info", "warn", "error"];

/** Reads env values for every option (flags are layered on top by the caller). */
export function settingsFromEnv(env: Record<string, string | undefined>): RawSettings {
  const settings: RawSettings = {};
  for (const option of OPTIONS) {
    const value = env[option.env];
    if (value !== undefined && value !== "") settings[option.key] = value;
  }
  return settings;
}

export function buildConfig(settings: RawSettings): Config {
  const values = {} as Record<string, unknown>;
  for (const option of OPTIONS) {
    const raw = settings[option.key];
    values[option.key] = raw === undefined ? option.default : coerce(option, raw);
  }
  const v = values as unknown as ConfigValues;
  if (!Number.isInteger(v.port) || v.port < 0 || v.port > 65535) throw new ConfigError(`--port must be between 0 and 65535, got ${v.port}`);
  if (!validHost(v.host)) throw new ConfigError(`--host ${v.host} is not an IP address or host name to listen on`);
  for (const key of ["rateLimitPerMinute", "publicRateLimitPerMinute", "jobLeaseSeconds", "settlementSeconds"] as const) {
    if (v[key] < 1) throw new ConfigError(`${flagOf(key)} must be at least 1`);
  }
  if (v.auditRetentionDays < 0) throw new ConfigError(`${flagOf("auditRetentionDays")} must be 0 (keep every row) or more`);
  if (v.scheduleGraceMinutes < 0) throw new ConfigError(`${flagOf("scheduleGraceMinutes")} must be 0 or more`);
  if (!/^[A-Z]{3}$/.test(v.currency)) throw new ConfigError(`--currency must be an ISO 4217 code such as USD or EUR, got "${v.currency}"`);
  if (!/^[a-z][a-z0-9]{0,19}$/.test(v.brandSlug)) {
    throw new ConfigError(`--brand-slug must be 1-20 lowercase letters or digits starting with a letter, got "${v.brandSlug}"`);
  }
  for (const key of ["demoAgent", "demoVerifyAgent"] as const) {
    if (v[key] && !/^agent_[A-Za-z0-9]+$/.test(v[key])) throw new ConfigError(`${flagOf(key)} must be an agent id (agent_…), got "${v[key]}"`);
  }
  if (v.stripeSecretKey && !/^(sk|rk)_(test|live)_\S+$/.test(v.stripeSecretKey)) throw new ConfigError("--stripe-secret-key must be a Stripe secret or restricted key (sk_live_…, sk_test_…, rk_…)");
  if (v.stripeSecretKey && !v.stripeWebhookSecret) throw new ConfigError("--stripe-webhook-secret is needed with --stripe-secret-key: without it no payment could be confirmed");
  if (!/^https?:\/\/[^/]+/.test(v.stripeApiUrl)) throw new ConfigError("--stripe-api-url must be an absolute http(s) URL");
  if (!LOG_LEVELS.includes(v.logLevel)) throw new ConfigError(`--log-level must be one of ${LOG_LEVELS.join(", ")}`);
  if (!["open", "closed"].includes(v.registration)) throw new ConfigError(`--registration must be open or closed`);
  if (!["accurate", "fast"].includes(v.builtinRecognition)) throw new ConfigError(`--builtin-recognition must be accurate or fast, got "${v.builtinRecognition}"`);
  if (!["dns", "skip"].includes(v.domainVerification)) throw new ConfigError(`--domain-verification must be dns or skip, got "${v.domainVerification}"`);
  for (const server of v.dnsServers) {
    if (!validDnsServer(server)) throw new ConfigError(`--dns-servers: "${server}" is not an IP address with an optional port (1.1.1.1, 10.0.0.2:5353, [::1]:53)`);
  }
  const trustedProxies = v.trustedProxies.map((entry) => {
    const cidr = parseCidr(entry);
    if (!cidr) throw new ConfigError(`--trusted-proxies: "${entry}" is not an IP address or CIDR range`);
    return cidr;
  });
  if (v.databaseUrl) parseDatabaseUrl(v.databaseUrl); // throws ConfigError naming what is wrong
  const metricsAddress = v.metricsListen ? listenAddress(v.metricsListen) : null;
  if (v.metricsListen && !metricsAddress) throw new ConfigError(`--metrics-listen must be HOST:PORT (127.0.0.1:9464, [::1]:9464), got "${v.metricsListen}"`);
  if (metricsAddress && metricsAddress.port !== 0 && metricsAddress.port === v.port) throw new ConfigError(`--metrics-listen ${v.metricsListen} is on the API's port: metrics need a port of their own, off the public one`);
  if (v.metricsToken && !metricsAddress) throw new ConfigError("--metrics-token needs --metrics-listen (the metrics are only served there)");
  if (v.metricsToken && !/^[\x21-\x7e]{16,}$/.test(v.metricsToken)) throw new ConfigError("--metrics-token must be at least 16 printable characters without spaces");
  if (v.nodeName && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(v.nodeName)) throw new ConfigError(`--node-name must be 1-63 letters, digits, dots, dashes or underscores, got "${v.nodeName}"`);
  for (const key of ["publicUrl", "dashboardUrl", "nodeUrl"] as const) {
    if (v[key] && !/^https?:\/\/[^/]+/.test(v[key])) throw new ConfigError(`${flagOf(key)} must be an absolute http(s) URL`);
    v[key] = v[key].replace(/\/+$/, "");
  }
  return { ...v, dataDir: resolve(v.dataDir), filesDir: v.filesDir ? resolve(v.filesDir) : "", nodeName: v.nodeName || hostname(), trustedProxies, metricsAddress, jsonBodyLimitBytes: 1024 * 1024, webhookTimeoutMs: 10_000, checkResponses: false };
}

/** An IPv4 or IPv6 address, or a DNS name (a dotted quad must be a real IPv4 address: 999.1.1.1 is not). */
function validHost(host: string): boolean {
  if (isIP(host)) return true;
  if (/^[\d.]+$/.test(host)) return false;
  return /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(host);
}

/** `host:port` or `[ipv6]:port` to listen on (port 0 picks a free one), or null when it is neither. */
function listenAddress(value: string): { host: string; port: number } | null {
  const match = /^(?:\[([^\]]+)\]|([^:\[\]]+)):(\d{1,5})$/.exec(value);
  if (!match) return null;
  const host = match[1] ?? match[2];
  const port = Number(match[3]);
  if (port > 65535 || (match[1] !== undefined && isIP(host) !== 6) || !validHost(host)) return null;
  return { host, port };
}

/** An address node's DNS resolver takes: an IP, `ipv4:port` or `[ipv6]:port`. */
function validDnsServer(server: string): boolean {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(server);
  if (!match) return isIP(server) !== 0;
  const port = Number(match[3]);
  return isIP(match[1] ?? match[2]) !== 0 && port >= 1 && port <= 65535;
}

/** The public base URL once the real port is known. */
export function publicBaseUrl(config: Config, port: number): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

function coerce(option: OptionSpec, raw: string | boolean): unknown {
  const flag = `--${option.flag}`;
  switch (option.type) {
    case "boolean":
      if (typeof raw === "boolean") return raw;
      if (["true", "1", "yes", "on"].includes(raw.toLowerCase())) return true;
      if (["false", "0", "no", "off"].includes(raw.toLowerCase())) return false;
      throw new ConfigError(`${flag} expects true or false, got "${raw}"`);
    case "integer": {
      if (typeof raw === "boolean" || !/^-?\d+$/.test(raw)) throw new ConfigError(`${flag} expects a whole number, got "${raw}"`);
      return Number(raw);
    }
    case "list":
      if (typeof raw === "boolean") throw new ConfigError(`${flag} expects a value`);
      return raw.split(",").map((s) => s.trim()).filter(Boolean);
    default:
      if (typeof raw === "boolean") throw new ConfigError(`${flag} expects a value`);
      return raw;
  }
}

function flagOf(key: keyof ConfigValues): string {
  return `--${OPTIONS.find((o) => o.key === key)!.flag}`;
}
