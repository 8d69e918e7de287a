import type { AppContext } from "../../core/context.ts";
import type { WebCalls } from "../../telephony/types.ts";
import type { BrainServices } from "../../voice/brains/services.ts";
import { agentConfigForCall, connectLeg } from "./connect.ts";
import { endCall } from "./lifecycle.ts";
import { BROWSER_CARRIER, createWebCall } from "./service.ts";

/** Browser sessions as calls: the same connection path as a carrier's inbound call, without a number. */
export function webCalls(ctx: AppContext, brains: BrainServices): WebCalls {
  return {
    answer(workspaceId, request, makeLeg) {
      const call = createWebCall(ctx, workspaceId, request);
      try {
        const leg = makeLeg(call.id);
        connectLeg(ctx, brains, call, agentConfigForCall(ctx, call)!, leg, { carrierKind: BROWSER_CARRIER, screenForMachine: false, scriptedRecognition: false });
      } catch (error) {
        endCall(ctx, call.id, { status: "failed", endReason: "error" });
        throw error;
      }
      return call.id;
    },
  };
}
