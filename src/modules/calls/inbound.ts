import type { AppContext } from "../../core/context.ts";
import { ApiError } from "../../http/errors.ts";
import type { InboundCalls, InboundRequest } from "../../telephony/types.ts";
import type { BrainServices } from "../../voice/brains/services.ts";
import { findOwnedNumber } from "../phone-numbers/service.ts";
import { agentConfigForCall, connectLeg } from "./connect.ts";
import { endCall } from "./lifecycle.ts";
import { checkInboundAllowed, createInboundCall } from "./service.ts";

/** The one inbound path every carrier uses: the number's agent answers, or the call is refused saying why. */
export function inboundCalls(ctx: AppContext, brains: BrainServices): InboundCalls {
  const numberFor = (workspaceId: string, request: InboundRequest) => {
    const number = findOwnedNumber(ctx, workspaceId, request.to);
    // Another workspace's number, or one on another carrier, is as unknown as a number nobody owns.
    if (!number || number.carrier !== request.carrier) throw new ApiError("not_found", `${request.to} is not a ${request.carrier} number of this workspace`);
    return number;
  };
  return {
    check(workspaceId, request) {
      checkInboundAllowed(ctx, workspaceId, numberFor(workspaceId, request), request.simulatedRecognition);
    },
    answer(workspaceId, request, makeLeg) {
      const call = createInboundCall(ctx, workspaceId, numberFor(workspaceId, request), request.from, request.carrierOptions, request.simulatedRecognition);
      try {
        const leg = makeLeg(call.id);
        connectLeg(ctx, brains, call, agentConfigForCall(ctx, call)!, leg, { screenForMachine: false, simulatedRecognition: request.simulatedRecognition });
      } catch (error) {
        endCall(ctx, call.id, { status: "failed", endReason: "error" });
        throw error;
      }
      return call.id;
    },
  };
}
