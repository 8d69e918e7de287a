// The runner's deps assembled from a test server's in-process context, for runner tests. Test calls
// arrive through the real inbound path of a simulated number assigned to the agent (recognition
// announced), as the calls side's startTestCall does with its own call row.
import type { Parley } from "../../src/server.ts";
import { configAtVersion } from "../../src/modules/agents/service.ts";
import { findCall } from "../../src/modules/calls/lifecycle.ts";
import { callTimeline } from "../../src/modules/calls/service.ts";
import { LIVE_STATUSES } from "../../src/db/schema/index.ts";
import { connectionOf } from "../../src/providers/connection.ts";
import { findProvider } from "../../src/providers/store.ts";
import type { RunnerDeps } from "../../src/modules/agent-tests/runner/deps.ts";

export function runnerDepsOf(ctx: Parley, numberOfAgent: (agentId: string) => string): RunnerDeps {
  const readCall: RunnerDeps["readCall"] = (workspaceId, callId) => {
    const call = findCall(ctx, callId);
    if (!call || call.workspaceId !== workspaceId) return null;
    return {
      id: call.id,
      status: call.status,
      endReason: call.endReason,
      transferredTo: call.transferredTo,
      transcript: (call.transcript as never) ?? [],
      extracted: call.extracted as Record<string, unknown> | null,
      events: callTimeline(ctx, call).map((event) => ({ type: event.type, offsetMs: event.offsetMs, data: event.data })),
    };
  };
  return {
    startTestCall(request, makeLeg) {
      const callId = ctx.services.inbound.answer(
        request.workspaceId,
        { kind: "simulated", to: numberOfAgent(request.agentId), from: request.from, carrierOptions: { recognition: request.scriptedRecognition ? "simulated" : "agent" } },
        makeLeg,
      );
      const done = (async () => {
        for (;;) {
          const call = findCall(ctx, callId);
          if (!call || (!LIVE_STATUSES.includes(call.status) && call.extracted !== null)) return;
          await Bun.sleep(50);
        }
      })();
      return { callId, done };
    },
    readCall,
    languageModel(workspaceId, providerId) {
      const row = findProvider(ctx.db, workspaceId, providerId);
      return row ? { connection: connectionOf(ctx, row), chatModel: (row.settings.chat_model as string | undefined) ?? null } : null;
    },
    agentTools(workspaceId, agentId, version) {
      const config = configAtVersion(ctx, workspaceId, agentId, version);
      const ids = (config?.tools ?? []).flatMap((tool) => ("tool_id" in tool ? [tool.tool_id] : []));
      return ctx.services.brains.tools(workspaceId, ids).map((tool) => ({ id: tool.id, name: tool.name }));
    },
  };
}
