import { cidrContains, parseCidr, parseIp, type Cidr } from "../lib/ip.ts";

// Addresses an outgoing request from the server must not reach unless the operator allows it:
// loopback, private, link-local (cloud metadata lives there), carrier NAT, multicast, reserved.
// IPv6 forms that carry an IPv4 address inside (IPv4-compatible ::/96, SIIT ::ffff:0:0:0/96, NAT64
// 64:ff9b::/96 and 64:ff9b:1::/48, Teredo 2001::/32, 6to4 2002::/16) are refused whole: a host that
// translates them may reach an internal IPv4 address, and no webhook or provider needs them.
// (IPv4-mapped ::ffff:0:0/96 is how IPv4 itself is compared here, against the IPv4 ranges.)
const BLOCKED = [
  "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24",
  "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
  "::/96", "::ffff:0:0:0/96", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8", "2001:db8::/32", "100::/64",
  "64:ff9b::/96", "64:ff9b:1::/48", "2001::/32", "2002::/16",
].map((text) => parseCidr(text) as Cidr);

/** True for addresses on the public internet; false for anything internal or unparseable. */
export function isPublicAddress(address: string): boolean {
  const bytes = parseIp(address);
  if (!bytes) return false;
  return !BLOCKED.some((cidr) => cidrContains(cidr, bytes));
}
