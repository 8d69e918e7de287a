// IP address parsing and CIDR matching for trusted proxies and, later, the SSRF guard.

/** Parses IPv4 or IPv6 text into 16 bytes (IPv4 as IPv4-mapped IPv6), or null. */
export function parseIp(text: string): Uint8Array | null {
  const value = text.trim().replace(/^\[|\]$/g, "").split("%")[0];
  const v4 = parseIpv4(value);
  if (v4) return mapV4(v4);
  if (!value.includes(":")) return null;
  let head = value;
  let tailV4: Uint8Array | null = null;
  const lastColon = value.lastIndexOf(":");
  if (value.slice(lastColon + 1).includes(".")) {
    tailV4 = parseIpv4(value.slice(lastColon + 1));
    if (!tailV4) return null;
    head = value.slice(0, lastColon) + ":0:0";
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const parseGroups = (part: string) => (part === "" ? [] : part.split(":"));
  const left = parseGroups(halves[0]);
  const right = halves.length === 2 ? parseGroups(halves[1]) : [];
  const missing = 8 - left.length - right.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return null;
  const groups = [...left, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...right];
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(groups[i])) return null;
    const n = parseInt(groups[i], 16);
    bytes[i * 2] = n >> 8;
    bytes[i * 2 + 1] = n & 0xff;
  }
  if (tailV4) bytes.set(tailV4, 12);
  return bytes;
}

function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (!/^\d{1,3}$/.test(parts[i])) return null;
    const n = Number(parts[i]);
    if (n > 255) return null;
    bytes[i] = n;
  }
  return bytes;
}

function mapV4(v4: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(16);
  bytes[10] = 0xff;
  bytes[11] = 0xff;
  bytes.set(v4, 12);
  return bytes;
}

export interface Cidr {
  bytes: Uint8Array;
  bits: number;
}

/** `10.0.0.0/8`, `::1`, `192.168.1.7` (a bare address is a /32 or /128). */
export function parseCidr(text: string): Cidr | null {
  const [address, prefix] = text.trim().split("/");
  const bytes = parseIp(address);
  if (!bytes) return null;
  const isV4 = !address.includes(":");
  const max = isV4 ? 32 : 128;
  const bits = prefix === undefined ? max : Number(prefix);
  if (!Number.isInteger(bits) || bits < 0 || bits > max) return null;
  return { bytes, bits: isV4 ? bits + 96 : bits };
}

export function cidrContains(cidr: Cidr, ip: Uint8Array): boolean {
  let remaining = cidr.bits;
  for (let i = 0; i < 16 && remaining > 0; i++) {
    const take = Math.min(8, remaining);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((cidr.bytes[i] & mask) !== (ip[i] & mask)) return false;
    remaining -= take;
  }
  return true;
}

/** Canonical text for an address (IPv4-mapped IPv6 shown as plain IPv4). */
export function formatIp(bytes: Uint8Array): string {
  const isMapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (isMapped) return Array.from(bytes.slice(12)).join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return groups.join(":").replace(/(^|:)0(:0)+(:|$)/, "::").replace(/:{3,}/, "::");
}
