// A SIP trunk connection's settings: checked and normalised once (422 naming the field), so the
// carrier can trust them.
import { networkInterfaces } from "node:os";
import { invalid } from "../../http/errors.ts";
import type { PreparedConnection } from "../kind.ts";
import type { Codec } from "./call-leg.ts";
import type { TransportName } from "./transport.ts";

export interface SipSettings {
  trunk: { host: string; port: number };
  transport: TransportName;
  domain: string;
  listenHost: string;
  listenPort: number;
  /** The address the trunk reaches us at (Via, Contact, SDP). */
  publicAddress: string;
  rtpPorts: { min: number; max: number };
  codecs: Codec[];
  register: boolean;
  registerExpires: number;
  ringTimeoutSeconds: number;
  stripPlus: boolean;
  keepaliveSeconds: number;
  /** Addresses INVITEs are taken from (an IP-authenticated trunk's whole security): the trunk's by default. */
  allowedSources: string[];
}

const KNOWN = new Set(["trunk", "transport", "domain", "listen_host", "listen_port", "public_address", "nodes", "rtp_port_min", "rtp_port_max", "codecs", "register", "register_expires", "ring_timeout_seconds", "strip_plus", "keepalive_seconds", "allowed_sources"]);
const HOST = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)$/;
/** What a node of a cluster may set for itself (each node binds its own address and port). */
const PER_NODE = ["listen_host", "listen_port", "public_address"] as const;
/** A node's name as --node-name takes it. */
const NODE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

type Listen = { listen_host?: string; listen_port?: number; public_address?: string };
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

function port(value: unknown, field: string, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > 65535) throw invalid(`settings.${field}`, `must be a port number (${min}–65535)`);
  return value as number;
}

function seconds(value: unknown, field: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) throw invalid(`settings.${field}`, `must be a whole number of seconds from ${min} to ${max}`);
  return value as number;
}

function flag(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw invalid(`settings.${field}`, "must be true or false");
  return value;
}

/** This machine's first outward IPv4 address: what a trunk elsewhere on the network can reach. */
function outwardAddress(): string {
  for (const list of Object.values(networkInterfaces())) for (const net of list ?? []) if (net.family === "IPv4" && !net.internal) return net.address;
  return "127.0.0.1";
}

/** The listen settings of `s` (the connection's own, or one node's), checked; fields named under `prefix`. */
function listenSettings(s: Record<string, unknown>, prefix: string): Listen {
  if (s.listen_host !== undefined && (typeof s.listen_host !== "string" || !HOST.test(s.listen_host))) throw invalid(`${prefix}.listen_host`, "must be an IP address to bind");
  if (s.public_address !== undefined && (typeof s.public_address !== "string" || !HOST.test(s.public_address))) throw invalid(`${prefix}.public_address`, "must be the IP address the trunk reaches this server at");
  port(s.listen_port, `${prefix}.listen_port`.slice("settings.".length), 0, 0); // port() names fields under settings. itself
  return { listen_host: s.listen_host as string | undefined, listen_port: s.listen_port as number | undefined, public_address: s.public_address as string | undefined };
}

/**
 * `nodes`: per-node listen settings of a cluster, by node name (--node-name), each over the connection's
 * own for that node alone: every node binds its own address and port, and the trunk lists each.
 */
function nodeSettings(value: unknown): Record<string, Listen> {
  if (value === undefined) return {};
  if (!value || typeof value !== "object" || Array.isArray(value)) throw invalid("settings.nodes", 'must map node names to their own listen settings: {"node-1":{"listen_port":5060}}');
  const nodes: Record<string, Listen> = {};
  for (const [name, entry] of Object.entries(value)) {
    const prefix = `settings.nodes.${name}`;
    if (!NODE_NAME.test(name)) throw invalid(prefix, "must be a node's name (--node-name): letters, digits, dots, dashes or underscores");
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) throw invalid(prefix, `must be an object of ${PER_NODE.join(", ")}`);
    for (const key of Object.keys(entry)) if (!(PER_NODE as readonly string[]).includes(key)) throw invalid(`${prefix}.${key}`, `a node sets only ${PER_NODE.join(", ")}`);
    nodes[name] = listenSettings(entry as Record<string, unknown>, prefix);
  }
  return nodes;
}

/** Checks a connection's settings and credentials; returns them normalised (snake_case as stored). */
export function prepareSip(input: PreparedConnection): PreparedConnection {
  const s = input.settings;
  for (const key of Object.keys(s)) if (!KNOWN.has(key)) throw invalid(`settings.${key}`, `unknown setting; a SIP trunk takes ${[...KNOWN].join(", ")}`);
  if (typeof s.trunk !== "string" || !s.trunk) throw invalid("settings.trunk", "required: the PBX or SBC to send calls to, as host or host:port");
  readSip(s);
  const { username, password, ...rest } = input.credentials;
  const [extra] = Object.keys(rest);
  if (extra) throw invalid(`credentials.${extra}`, "a SIP trunk takes only username and password");
  if ((username === undefined) !== (password === undefined)) throw invalid(username === undefined ? "credentials.username" : "credentials.password", "username and password go together");
  if (s.register === true && !username) throw invalid("settings.register", "registration needs credentials.username and credentials.password");
  return input;
}

/**
 * The settings as the carrier uses them (defaults filled in), on the node named `nodeName` (its entry in
 * `nodes` over the connection's own listen settings). Throws 422s; prepareSip ran it once already.
 */
export function readSip(s: Record<string, unknown>, credentials: Record<string, string> = {}, nodeName = ""): SipSettings {
  const [host, portText] = String(s.trunk).split(/:(?=\d+$)/);
  if (!HOST.test(host)) throw invalid("settings.trunk", "must be a host name or IP address, with an optional :port");
  const trunk = { host, port: portText ? port(Number(portText), "trunk", 5060) : 5060 };
  const transport = s.transport ?? "udp";
  if (transport !== "udp" && transport !== "tcp") throw invalid("settings.transport", "must be udp or tcp");
  if (s.domain !== undefined && (typeof s.domain !== "string" || !HOST.test(s.domain))) throw invalid("settings.domain", "must be a host name");
  const own = listenSettings(s, "settings");
  const listen = { ...own, ...definedOf(nodeSettings(s.nodes)[nodeName] ?? {}) };
  const min = port(s.rtp_port_min, "rtp_port_min", 10000, 1024);
  const max = port(s.rtp_port_max, "rtp_port_max", 20000, 1024);
  if (max - min < 2) throw invalid("settings.rtp_port_max", "must be at least 2 above rtp_port_min (each call takes an even port for RTP and the odd one above it for RTCP)");
  const codecs = s.codecs ?? ["pcmu", "pcma"];
  if (!Array.isArray(codecs) || !codecs.length || codecs.some((c) => c !== "pcmu" && c !== "pcma") || new Set(codecs).size !== codecs.length) {
    throw invalid("settings.codecs", 'must list pcmu and/or pcma, in order of preference (["pcmu","pcma"])');
  }
  const sources = s.allowed_sources ?? [];
  if (!Array.isArray(sources) || sources.some((a) => typeof a !== "string" || !HOST.test(a))) throw invalid("settings.allowed_sources", "must be a list of IP addresses");
  const loopback = host === "localhost" || host.startsWith("127.");
  return {
    trunk,
    transport,
    domain: (s.domain as string | undefined) ?? host,
    listenHost: listen.listen_host ?? "0.0.0.0",
    listenPort: listen.listen_port ?? 5060,
    publicAddress: listen.public_address ?? (loopback ? "127.0.0.1" : outwardAddress()),
    rtpPorts: { min, max },
    codecs: codecs as Codec[],
    register: flag(s.register, "register", Boolean(credentials.username)),
    registerExpires: seconds(s.register_expires, "register_expires", 3600, 60, 86400),
    ringTimeoutSeconds: seconds(s.ring_timeout_seconds, "ring_timeout_seconds", 45, 5, 300),
    stripPlus: flag(s.strip_plus, "strip_plus", false),
    keepaliveSeconds: seconds(s.keepalive_seconds, "keepalive_seconds", 30, 0, 3600),
    allowedSources: sources as string[],
  };
}

/** The entries that are set (a node's missing one leaves the connection's own). */
const definedOf = (listen: Listen): Listen => Object.fromEntries(Object.entries(listen).filter(([, value]) => value !== undefined));

export const isIp = (host: string) => IPV4.test(host) || host.startsWith("[") || host.includes(":");
