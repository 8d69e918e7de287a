import type { AppContext } from "../../core/context.ts";
import { ApiError } from "../../http/errors.ts";
import type { CarrierRegistry } from "../../telephony/registry.ts";
import type { InboundCalls, InboundRequest } from "../../telephony/types.ts";
import type { BrainServices } from "../../voice/brains/services.ts";
import { agentConfigForCall, connectLeg } from "./connect.ts";
import { endCall } from "./lifecycle.ts";
import { callsPorts } from "./ports.ts";
import { checkInboundAllowed, createInboundCall } from "./service.ts";

/** The one inbound path every carrier uses: the number's agent answers, or the call is refused saying why. */
export function inboundCalls(ctx: AppContext, brains: BrainServices, carriers: CarrierRegistry): InboundCalls {
  /** The number called and its carrier, when it is this workspace's number on a connection of the request's kind. */
  const route = (workspaceId: string, request: InboundRequest) => {
    const number = callsPorts(ctx).ownedNumber(workspaceId, request.to);
    const carrier = number ? carriers.carrier(workspaceId, number.carrier) : undefined;
    // Another workspace's number, or one on another carrier, is as unknown as a number nobody owns.
    if (!number || !carrier || carrier.kind !== request.kind || (request.connectionId && number.carrier !== request.connectionId)) {
      throw new ApiError("not_found", `${request.to} is not a ${request.kind} number of this workspace`);
    }
    return { number, kind: carrier.kind, scripted: carrier.scriptedRecognition("inbound", request.carrierOptions) };
  };
  return {
    check(workspaceId, request) {
      const { number, kind, scripted } = route(workspaceId, request);
      checkInboundAllowed(ctx, workspaceId, number, scripted, kind);
    },
    answer(workspaceId, request, makeLeg) {
      const { number, kind, scripted } = route(workspaceId, request);
      const call = createInboundCall(ctx, workspaceId, number, request.from, request.carrierOptions, scripted, kind);
      try {
        const leg = makeLeg(call.id);
        connectLeg(ctx, brains, call, agentConfigForCall(ctx, call)!, leg, { carrierKind: kind, screenForMachine: false, scriptedRecognition: scripted });
      } catch (error) {
        endCall(ctx, call.id, { status: "failed", endReason: "error" });
        throw error;
      }
      return call.id;
    },
  };
}
