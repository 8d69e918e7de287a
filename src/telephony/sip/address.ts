// The parts of SIP headers the user agent reads: URIs, name-addrs with their tag, and Via.
import { SipParseError } from "./message.ts";

export interface SipUri {
  scheme: "sip" | "sips" | "tel";
  user: string | null;
  host: string;
  port: number | null;
  params: Record<string, string | null>;
}

function parseParams(text: string): Record<string, string | null> {
  const params: Record<string, string | null> = {};
  for (const part of text.split(";")) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf("=");
    if (eq < 0) params[trimmed.toLowerCase()] = null;
    else params[trimmed.slice(0, eq).trim().toLowerCase()] = trimmed.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
  }
  return params;
}

export function parseUri(text: string): SipUri {
  const tel = /^tel:([^;]+)(.*)$/i.exec(text.trim());
  if (tel) return { scheme: "tel", user: tel[1], host: "", port: null, params: parseParams(tel[2]) };
  const match = /^(sips?):(?:([^@;]+)@)?(\[[0-9a-fA-F:.]+\]|[^:;?>]+)(?::(\d{1,5}))?([^?]*)/i.exec(text.trim());
  if (!match) throw new SipParseError(`not a SIP URI: ${text.slice(0, 60)}`);
  const port = match[4] ? Number(match[4]) : null;
  if (port !== null && (port < 1 || port > 65535)) throw new SipParseError(`bad port in ${text.slice(0, 60)}`);
  // A user part may carry a password (sip:alice:secret@host); it is never used.
  const user = match[2] ? decodeURIComponent(match[2].split(":")[0]) : null;
  return { scheme: match[1].toLowerCase() as "sip" | "sips", user, host: match[3].toLowerCase(), port, params: parseParams(match[5]) };
}

export interface NameAddr {
  display: string | null;
  uri: string;
  params: Record<string, string | null>;
}

/** From, To, Contact, Refer-To: `"Name" <sip:…>;tag=…` or a bare URI (whose `;` params are the header's). */
export function parseNameAddr(text: string): NameAddr {
  const trimmed = text.trim();
  const angle = /^(?:"((?:[^"\\]|\\.)*)"|([^<"]*?))\s*<([^>]*)>(.*)$/.exec(trimmed);
  if (angle) return { display: angle[1] ?? (angle[2]?.trim() || null), uri: angle[3], params: parseParams(angle[4]) };
  const semi = trimmed.indexOf(";");
  if (semi < 0) return { display: null, uri: trimmed, params: {} };
  return { display: null, uri: trimmed.slice(0, semi), params: parseParams(trimmed.slice(semi)) };
}

export function formatNameAddr(addr: NameAddr): string {
  const params = Object.entries(addr.params).map(([key, value]) => (value === null ? `;${key}` : `;${key}=${value}`)).join("");
  return `${addr.display ? `"${addr.display.replace(/"/g, "")}" ` : ""}<${addr.uri}>${params}`;
}

export interface Via {
  transport: string;
  host: string;
  port: number | null;
  params: Record<string, string | null>;
}

export function parseVia(text: string): Via {
  const match = /^SIP\s*\/\s*2\.0\s*\/\s*([A-Za-z]+)\s+(\[[0-9a-fA-F:.]+\]|[^\s:;]+)(?::(\d{1,5}))?\s*(.*)$/.exec(text.trim());
  if (!match) throw new SipParseError(`bad Via ${text.slice(0, 60)}`);
  return { transport: match[1].toUpperCase(), host: match[2], port: match[3] ? Number(match[3]) : null, params: parseParams(match[4]) };
}

/** The number a URI names (the DID of a Request-URI or To): digits with an optional leading +. */
export function numberOf(uri: SipUri): string | null {
  const user = uri.user?.replace(/[-.() ]/g, "") ?? "";
  return /^\+?\d{3,15}$/.test(user) ? user : null;
}
