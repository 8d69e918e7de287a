import { checkUrlShape, pinToCheckedAddress, type OutboundPolicy } from "./outbound.ts";

/**
 * Opens a WebSocket under the rules openOutbound applies to HTTP (shape check, then resolve-and-pin).
 * Accepts http(s):// or ws(s):// and connects over ws(s)://.
 */
export async function openCheckedWebSocket(raw: string, headers: Record<string, string>, policy: OutboundPolicy): Promise<WebSocket> {
  const url = checkUrlShape(raw.replace(/^ws(s?):\/\//i, "http$1://"), policy);
  const pinned = await pinToCheckedAddress(url, policy);
  pinned.url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return new WebSocket(pinned.url.toString(), { headers: { ...headers, ...pinned.headers }, tls: pinned.tls });
}
