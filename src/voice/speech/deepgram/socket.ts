import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isPublicAddress } from "../../../net/address-policy.ts";
import { checkUrlShape, OutboundFailed, OutboundRefused, type OutboundPolicy } from "../../../net/outbound.ts";

/**
 * Opens a WebSocket under the rules openOutbound applies to HTTP: the http(s) form of the URL is
 * shape-checked, and without private URLs the host is resolved here, every address checked and the
 * socket pinned to a checked one (Host header and TLS name kept), so DNS cannot redirect it inside.
 * Accepts http(s):// or ws(s):// and connects over ws(s)://.
 */
export async function openCheckedWebSocket(raw: string, headers: Record<string, string>, policy: OutboundPolicy): Promise<WebSocket> {
  const url = checkUrlShape(raw.replace(/^ws(s?):\/\//i, "http$1://"), policy);
  const target = new URL(url);
  const socketHeaders = { ...headers };
  const tls: { serverName?: string } = {};
  if (!policy.allowPrivate) {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await (policy.resolve ?? resolveAll)(host);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) throw new OutboundRefused(`${host} resolves to ${refused.address}, a private or reserved address`);
    const pinned = addresses[0];
    target.hostname = pinned.family === 6 ? `[${pinned.address}]` : pinned.address;
    socketHeaders.host = url.host;
    tls.serverName = host;
  }
  target.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return new WebSocket(target.toString(), { headers: socketHeaders, tls });
}

async function resolveAll(host: string): Promise<{ address: string; family: number }[]> {
  try {
    const addresses = await lookup(host, { all: true, verbatim: true });
    if (addresses.length === 0) throw new Error("no addresses");
    return addresses;
  } catch (error) {
    throw new OutboundFailed(`cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
