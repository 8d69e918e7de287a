// The doors other nodes of the cluster knock on (never a client's, never documented): a control for a
// call whose leg is here, and a workspace just suspended (refused here too, its calls here stopped). Admitted by the node key's
// signature (http/auth.ts, guard "node"); the body must be the one the signature covers.
import { Elysia, status, t, type TSchema } from "elysia";
import { Value } from "@sinclair/typebox/value";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { RawBody } from "../../http/body-parser.ts";
import { ApiError, invalid } from "../../http/errors.ts";
import { IdParam } from "../../http/models.ts";
import { refreshSuspendedWorkspaces, suspendedWorkspaces } from "../../http/suspensions.ts";
import { bodyMatches } from "../../cluster/internal-channel.ts";
import { controlLocalCall, type CallControl } from "./controls.ts";
import { getCall, stopLocalWorkspaceCalls } from "./service.ts";

const WorkspaceId = t.String({ minLength: 1, maxLength: 64 });
const ControlRequest = t.Union([
  t.Object({ workspace_id: WorkspaceId, action: t.Literal("hangup") }),
  t.Object({ workspace_id: WorkspaceId, action: t.Literal("say"), text: t.String({ minLength: 1, maxLength: 2000 }) }),
  t.Object({ workspace_id: WorkspaceId, action: t.Literal("transfer"), to: t.String({ minLength: 1, maxLength: 200 }), reason: t.Union([t.String({ maxLength: 200 }), t.Null()]) }),
]);
const StopRequest = t.Object({ reason: t.String({ minLength: 1, maxLength: 64 }) });

/** The signed body, parsed and checked against its schema. */
function signedBody<T extends TSchema>(request: Request, body: unknown, schema: T): T["static"] {
  const text = body instanceof RawBody ? body.text : "";
  if (!bodyMatches(request, text)) throw new ApiError("forbidden", "the body is not the one the node signature covers");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("malformed_json", "the body is not JSON");
  }
  const error = Value.Errors(schema, value).First();
  if (error) throw invalid(error.path.slice(1).replaceAll("/", ".") || "body", error.message);
  return value as T["static"];
}

export function callNodeRoutes(ctx: HttpContext) {
  const raw = { "x-body-types": ["application/json"], "x-body-raw": true };
  return new Elysia({ prefix: "/internal/v1" })
    .use(authPlugin(ctx))
    .post(
      "/calls/:id/control",
      async ({ params, body, request }) => {
        const { workspace_id, ...control } = signedBody(request, body, ControlRequest);
        // Scoped by the workspace the asking node resolved from its caller's credential: another's call is 404 here too.
        const call = getCall(ctx, workspace_id, params.id);
        // Sent to a URL that is not this node's alone (a balancer's: --node-url unset behind one): say so, never pass it on.
        if (call.status === "in_progress" && call.nodeId !== ctx.nodeId) {
          throw new ApiError("service_unavailable", `the control for the call's node reached node ${ctx.config.nodeName} instead: give each node its own --node-url`);
        }
        await controlLocalCall(ctx, workspace_id, params.id, control as CallControl);
        return status(202, { status: "accepted" as const });
      },
      { node: true, params: IdParam, detail: raw },
    )
    .post(
      "/workspaces/:id/suspended",
      ({ params, body, request }) => {
        const { reason } = signedBody(request, body, StopRequest);
        // The database says whether it is suspended (the message only says when to look): refused from the next request on.
        refreshSuspendedWorkspaces(ctx);
        if (!suspendedWorkspaces(ctx).has(params.id)) return status(202, { stopped: 0 });
        return status(202, { stopped: stopLocalWorkspaceCalls(ctx, params.id, reason) });
      },
      { node: true, params: IdParam, detail: raw },
    );
}
