import type { AppContext } from "../../core/context.ts";
import { findNode, liveNodes } from "../../cluster/nodes.ts";
import { nodeIsLive, NodeUnreachable, sendToNode, type NodeAnswer } from "../../cluster/internal-channel.ts";
import { ApiError, ERROR_CODES, type ErrorCode, type FieldError } from "../../http/errors.ts";
import { liveCalls } from "../../voice/runtime/registry.ts";
import { getCall, requireLive, stopLocalWorkspaceCalls } from "./service.ts";

// A call's audio lives on the node that holds its leg; its controls work from any node. Where the call
// is not live in this process, the control goes to its node (calls.node_id) over the signed node
// channel (src/cluster/internal-channel.ts), and the caller gets what that node answered.

export type CallControl = { action: "hangup" } | { action: "say"; text: string } | { action: "transfer"; to: string; reason: string | null };

export const controlPath = (callId: string) => `/internal/v1/calls/${callId}/control`;
export const suspendedPath = (workspaceId: string) => `/internal/v1/workspaces/${workspaceId}/suspended`;

/** Applies a control to a call live in this process (409 when it is not in progress here). */
export async function controlLocalCall(ctx: AppContext, workspaceId: string, id: string, control: CallControl): Promise<void> {
  const { live } = requireLive(ctx, workspaceId, id);
  if (control.action === "hangup") live.hangup("agent_hangup");
  else if (control.action === "say") live.say(control.text);
  else await live.transfer(control.to, control.reason);
}

/** A control from any node: applied here when the call's leg is here, else by the node that holds it. */
export async function controlCall(ctx: AppContext, workspaceId: string, id: string, control: CallControl): Promise<void> {
  const call = getCall(ctx, workspaceId, id);
  const elsewhere = call.status === "in_progress" && call.nodeId !== null && call.nodeId !== ctx.nodeId && !liveCalls(ctx).has(id);
  if (!elsewhere) return controlLocalCall(ctx, workspaceId, id, control);
  const node = findNode(ctx, call.nodeId!);
  // Its node stopped or fell silent: nobody holds the leg; the loss sweep ends the call as failed (node_lost).
  if (!nodeIsLive(ctx, node)) throw new ApiError("invalid_state", `the call's node (${node?.name ?? call.nodeId}) is gone; the call is about to end as failed (node_lost)`);
  expectAccepted(await askNode(ctx, node!, controlPath(id), { workspace_id: workspaceId, ...control }));
}

/**
 * Stops every call of a suspended workspace on every node: this node's live calls hang up with `reason`
 * and queued ones are canceled; every other live node is told at once, so it refuses the workspace from
 * its next request on (it reads the suspension from the database) and hangs up the calls it holds.
 */
export async function stopWorkspaceCalls(ctx: AppContext, workspaceId: string, reason: string): Promise<number> {
  let stopped = stopLocalWorkspaceCalls(ctx, workspaceId, reason);
  const others = liveNodes(ctx).filter((node) => node.id !== ctx.nodeId);
  const answers = await Promise.allSettled(others.map((node) => sendToNode(ctx, node, suspendedPath(workspaceId), { reason })));
  answers.forEach((answer, n) => {
    if (answer.status === "fulfilled" && answer.value.status === 202) stopped += Number(answer.value.body?.stopped ?? 0);
    // A node that does not answer still reads the suspension within seconds (server.ts); the calls it
    // holds end then, or with the node if it is gone (the loss sweep).
    else ctx.logger.error("a node was not told of a suspension", { node_id: others[n].id, workspace_id: workspaceId, answer: answer.status === "fulfilled" ? answer.value.status : (answer.reason as Error).message });
  });
  return stopped;
}

async function askNode(ctx: AppContext, node: Parameters<typeof sendToNode>[1], path: string, payload: unknown): Promise<NodeAnswer> {
  try {
    return await sendToNode(ctx, node, path, payload);
  } catch (error) {
    if (error instanceof NodeUnreachable) throw new ApiError("service_unavailable", `the call's node did not answer; retry shortly (${error.message})`);
    throw error;
  }
}

/** The owner's refusal, answered as this node's own (same code, detail and field errors). */
function expectAccepted(answer: NodeAnswer): void {
  if (answer.status === 202) return;
  // The node refused this node's signature: not the caller's fault, and not the caller's credential.
  if (answer.status === 401 || answer.status === 403) throw new ApiError("bad_gateway", `the call's node refused this node's signature (${answer.status}): do the nodes share one instance key, and their clocks agree?`);
  const code = answer.body?.code as string | undefined;
  if (code && code in ERROR_CODES) throw new ApiError(code as ErrorCode, String(answer.body?.detail ?? ""), answer.body?.errors ? { errors: answer.body.errors as FieldError[] } : {});
  throw new ApiError("bad_gateway", `the call's node answered ${answer.status}`);
}
