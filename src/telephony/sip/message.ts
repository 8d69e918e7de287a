// SIP messages (RFC 3261 §7): parsing with the limits a public UDP port needs, and serialising with
// a Content-Length that is always right. Written here because no maintained npm parser fits a Bun
// binary (the `sip` package is unmaintained and owns its sockets; drachtio needs its C++ server).

/** Bigger datagrams are refused: a SIP message that needs more is not one this trunk will send. */
export const MAX_MESSAGE_BYTES = 65_535;
const MAX_HEADERS = 120;

export class SipParseError extends Error {}

/** Header names in their canonical form, compact forms (RFC 3261 §7.3.3) expanded. */
const COMPACT: Record<string, string> = {
  v: "via", f: "from", t: "to", i: "call-id", m: "contact", l: "content-length", c: "content-type",
  k: "supported", s: "subject", e: "content-encoding", o: "event", r: "refer-to", b: "referred-by", x: "session-expires", u: "allow-events",
};
const canonical = (name: string) => {
  const lower = name.toLowerCase();
  return COMPACT[lower] ?? lower;
};

/** An ordered multi-map of headers; names are case-insensitive and compact forms are expanded. */
export class SipHeaders {
  private readonly entries: [string, string][] = [];

  constructor(init: [string, string][] = []) {
    for (const [name, value] of init) this.append(name, value);
  }
  append(name: string, value: string): this {
    this.entries.push([canonical(name), value]);
    return this;
  }
  set(name: string, value: string): this {
    this.delete(name);
    return this.append(name, value);
  }
  delete(name: string): void {
    const key = canonical(name);
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i][0] === key) this.entries.splice(i, 1);
  }
  get(name: string): string | undefined {
    const key = canonical(name);
    return this.entries.find(([entry]) => entry === key)?.[1];
  }
  /** Every value of a header, comma-joined values split (Via: a, b → two). */
  all(name: string): string[] {
    const key = canonical(name);
    return this.entries.filter(([entry]) => entry === key).flatMap(([, value]) => splitList(value));
  }
  has(name: string): boolean {
    return this.get(name) !== undefined;
  }
  list(): readonly [string, string][] {
    return this.entries;
  }
}

export interface SipRequest {
  type: "request";
  method: string;
  uri: string;
  headers: SipHeaders;
  body: string;
}

export interface SipResponse {
  type: "response";
  status: number;
  reason: string;
  headers: SipHeaders;
  body: string;
}

export type SipMessage = SipRequest | SipResponse;

/** Splits a header list at commas outside quotes and angle brackets. */
function splitList(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch === '"' && value[i - 1] !== "\\") quoted = !quoted;
    else if (!quoted && ch === "<") depth++;
    else if (!quoted && ch === ">") depth--;
    else if (!quoted && depth === 0 && ch === ",") {
      out.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(value.slice(start).trim());
  return out.filter(Boolean);
}

const TOKEN = /^[A-Za-z0-9.!%*_+`'~-]+$/;

/**
 * One whole message (a UDP datagram, or a frame cut by SipStreamDecoder). Throws SipParseError
 * saying what is wrong; the caller answers 400 when it can tell who asked.
 */
export function parseMessage(data: Uint8Array | string): SipMessage {
  const text = typeof data === "string" ? data : new TextDecoder().decode(data);
  if (text.length > MAX_MESSAGE_BYTES) throw new SipParseError(`message of ${text.length} bytes exceeds ${MAX_MESSAGE_BYTES}`);
  const split = /\r?\n\r?\n/.exec(text);
  const head = split ? text.slice(0, split.index) : text;
  let body = split ? text.slice(split.index + split[0].length) : "";
  const lines = head.split(/\r?\n/);
  const startLine = lines.shift() ?? "";
  const headers = new SipHeaders();
  let count = 0;
  for (const line of lines) {
    if (/^[ \t]/.test(line)) {
      // Folded continuation of the previous header (RFC 3261 §7.3.1).
      const last = headers.list().at(-1);
      if (!last) throw new SipParseError("a continuation line before any header");
      (last as [string, string])[1] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) throw new SipParseError(`header line without a name: ${line.slice(0, 40)}`);
    const name = line.slice(0, colon).trim();
    if (!TOKEN.test(name)) throw new SipParseError(`bad header name ${name.slice(0, 40)}`);
    if (++count > MAX_HEADERS) throw new SipParseError(`more than ${MAX_HEADERS} headers`);
    headers.append(name, line.slice(colon + 1).trim());
  }
  const length = headers.get("content-length");
  if (length !== undefined) {
    if (!/^\d+$/.test(length)) throw new SipParseError(`bad Content-Length ${length}`);
    const bytes = new TextEncoder().encode(body);
    if (Number(length) > bytes.length) throw new SipParseError(`body shorter than its Content-Length ${length}`);
    body = new TextDecoder().decode(bytes.subarray(0, Number(length)));
  }
  const message = parseStartLine(startLine, headers, body);
  checkMandatory(message);
  return message;
}

function parseStartLine(line: string, headers: SipHeaders, body: string): SipMessage {
  const response = /^SIP\/2\.0 ([1-6]\d\d) ?(.*)$/.exec(line);
  if (response) return { type: "response", status: Number(response[1]), reason: response[2], headers, body };
  const request = /^([A-Za-z]+) (\S+) SIP\/2\.0$/.exec(line);
  if (request) return { type: "request", method: request[1].toUpperCase(), uri: request[2], headers, body };
  throw new SipParseError(`not a SIP start line: ${line.slice(0, 60)}`);
}

function checkMandatory(message: SipMessage): void {
  for (const name of ["via", "from", "to", "call-id", "cseq"]) {
    if (!message.headers.has(name)) throw new SipParseError(`missing ${name} header`);
  }
  const cseq = parseCSeq(message.headers.get("cseq")!);
  if (message.type === "request" && cseq.method !== message.method && !(message.method === "ACK" || message.method === "CANCEL")) {
    throw new SipParseError(`CSeq method ${cseq.method} does not match ${message.method}`);
  }
}

export function parseCSeq(value: string): { seq: number; method: string } {
  const match = /^(\d{1,10})\s+([A-Za-z]+)$/.exec(value.trim());
  if (!match) throw new SipParseError(`bad CSeq ${value.slice(0, 40)}`);
  return { seq: Number(match[1]), method: match[2].toUpperCase() };
}

export function serialize(message: SipMessage): string {
  const start = message.type === "request" ? `${message.method} ${message.uri} SIP/2.0` : `SIP/2.0 ${message.status} ${message.reason}`;
  const lines = [start];
  for (const [name, value] of message.headers.list()) {
    if (name !== "content-length") lines.push(`${headerCase(name)}: ${value}`);
  }
  lines.push(`Content-Length: ${new TextEncoder().encode(message.body).length}`);
  return `${lines.join("\r\n")}\r\n\r\n${message.body}`;
}

const SPECIAL_CASE: Record<string, string> = { "call-id": "Call-ID", cseq: "CSeq", "www-authenticate": "WWW-Authenticate" };
const headerCase = (name: string) => SPECIAL_CASE[name] ?? name.replace(/(^|-)([a-z])/g, (_, dash: string, ch: string) => dash + ch.toUpperCase());

/**
 * Cuts a TCP byte stream into messages by Content-Length (RFC 3261 §18.3); keep-alive CRLFs between
 * messages are skipped. Throws SipParseError when the stream cannot be framed (the connection closes).
 */
export class SipStreamDecoder {
  // Latin-1 keeps one character per byte, so Content-Length counts line up with string offsets.
  private buffer = "";

  push(chunk: Uint8Array): Uint8Array[] {
    this.buffer += Buffer.from(chunk).toString("latin1");
    const out: Uint8Array[] = [];
    for (;;) {
      this.buffer = this.buffer.replace(/^(\r\n)+/, "");
      const end = this.buffer.indexOf("\r\n\r\n");
      if (end < 0) {
        if (this.buffer.length > MAX_MESSAGE_BYTES) throw new SipParseError("headers longer than a message may be");
        return out;
      }
      const match = /^(?:content-length|l)[ \t]*:[ \t]*(\d+)/im.exec(this.buffer.slice(0, end));
      if (!match) throw new SipParseError("a message on a stream transport without Content-Length");
      const total = end + 4 + Number(match[1]);
      if (total > MAX_MESSAGE_BYTES) throw new SipParseError(`message of ${total} bytes exceeds ${MAX_MESSAGE_BYTES}`);
      if (this.buffer.length < total) return out;
      out.push(Buffer.from(this.buffer.slice(0, total), "latin1"));
      this.buffer = this.buffer.slice(total);
    }
  }
}
