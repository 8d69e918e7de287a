import type { AppContext } from "../core/context.ts";
import { hmacSha256, safeEqual, sha256Hex } from "../lib/crypto.ts";
import { SECOND } from "../lib/time.ts";
import { sendOutbound } from "../net/outbound.ts";
import { NODE_LOST_AFTER_MS, type NodeRow } from "./nodes.ts";

// The node-to-node channel: a node asks the node that holds a call's media to act on it. Each request
// is signed with the key every node derives from the shared instance key, over its method, path, time
// and the SHA-256 of its body, so the receiving node can refuse a stranger before reading the body.

export const NODE_HEADERS = { node: "x-parley-node", timestamp: "x-parley-node-timestamp", bodyHash: "x-parley-node-body-sha256", signature: "x-parley-node-signature" } as const;

/** A signed request older (or further ahead) than this is refused: a captured one cannot be replayed later. */
export const NODE_REQUEST_MAX_AGE_MS = 30 * SECOND;

/** A control waits on the owner's leg (a transfer, a carrier's hang-up): seconds, not minutes. */
const NODE_REQUEST_TIMEOUT_MS = 15 * SECOND;

function signature(key: Uint8Array, method: string, path: string, timestamp: string, bodyHash: string): string {
  return hmacSha256(key, `${method}\n${path}\n${timestamp}\n${bodyHash}`).toString("hex");
}

/** The headers that prove a request comes from a node of this cluster. */
export function signNodeRequest(ctx: AppContext, method: string, path: string, body: string, now = ctx.clock.now()): Record<string, string> {
  const timestamp = String(now);
  const bodyHash = sha256Hex(body);
  return { [NODE_HEADERS.node]: ctx.nodeId, [NODE_HEADERS.timestamp]: timestamp, [NODE_HEADERS.bodyHash]: bodyHash, [NODE_HEADERS.signature]: signature(ctx.keys.node, method, path, timestamp, bodyHash) };
}

/** Why a request's node signature does not hold ("missing": no signature at all), or null when it does. The body is checked apart (`bodyMatches`). */
export function nodeSignatureProblem(ctx: AppContext, request: Request): "missing" | "stale" | "bad" | null {
  const header = (name: string) => request.headers.get(name) ?? "";
  const [timestamp, bodyHash, signed] = [header(NODE_HEADERS.timestamp), header(NODE_HEADERS.bodyHash), header(NODE_HEADERS.signature)];
  if (!timestamp || !bodyHash || !signed) return "missing";
  if (!/^\d{1,15}$/.test(timestamp) || Math.abs(ctx.clock.now() - Number(timestamp)) > NODE_REQUEST_MAX_AGE_MS) return "stale";
  const path = new URL(request.url).pathname;
  return safeEqual(signature(ctx.keys.node, request.method, path, timestamp, bodyHash), signed) ? null : "bad";
}

/** Whether the body read is the one the signature covers. */
export function bodyMatches(request: Request, body: string): boolean {
  return safeEqual(sha256Hex(body), request.headers.get(NODE_HEADERS.bodyHash) ?? "");
}

/** A node that heartbeats within the bound and was neither stopped nor found lost: worth asking. */
export function nodeIsLive(ctx: AppContext, node: NodeRow | undefined): boolean {
  return node !== undefined && node.stoppedAt === null && node.lostAt === null && node.heartbeatAt >= ctx.clock.now() - NODE_LOST_AFTER_MS;
}

/** The owner's answer: its status and JSON body (a problem+json on refusal). */
export interface NodeAnswer {
  status: number;
  body: Record<string, unknown> | null;
}

/** The node did not answer (down, unreachable, too slow). */
export class NodeUnreachable extends Error {}

/**
 * Sends a signed JSON request to another node at its registered URL. Node URLs are private addresses
 * by design and come only from the nodes table, so the private-address policy for users' URLs does not apply.
 */
export async function sendToNode(ctx: AppContext, node: NodeRow, path: string, payload: unknown): Promise<NodeAnswer> {
  const body = JSON.stringify(payload);
  try {
    const response = await sendOutbound(
      `${node.url}${path}`,
      { method: "POST", headers: { "content-type": "application/json", ...signNodeRequest(ctx, "POST", path, body) }, body, timeoutMs: NODE_REQUEST_TIMEOUT_MS, maxResponseBytes: 64 * 1024 },
      { allowPrivate: true },
    );
    const text = new TextDecoder().decode(response.body);
    let parsed: Record<string, unknown> | null = null;
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : null;
    } catch {
      parsed = null;
    }
    return { status: response.status, body: parsed };
  } catch (error) {
    throw new NodeUnreachable(`node ${node.name} (${node.url}) did not answer: ${(error as Error).message}`);
  }
}
