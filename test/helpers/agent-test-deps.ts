// The runner's deps for runner tests, assembled from a test server's in-process context the way the
// composition root binds them (src/server.ts runCaseWithRunner): the calls side's test calls, the
// agent's tools at the version, the workspace's language models.
import type { Parley } from "../../src/server.ts";
import { configAtVersion } from "../../src/modules/agents/service.ts";
import { readTestCall, startTestCall } from "../../src/modules/calls/test-calls.ts";
import { connectionOf } from "../../src/providers/connection.ts";
import { findProvider } from "../../src/providers/store.ts";
import type { RunnerDeps } from "../../src/modules/agent-tests/runner/deps.ts";

export function runnerDepsOf(ctx: Parley): RunnerDeps {
  const brains = ctx.services.brains;
  return {
    startTestCall: (call, makeLeg) => startTestCall(ctx, brains, call, makeLeg),
    readCall: (workspaceId, callId) => readTestCall(ctx, workspaceId, callId),
    languageModel(workspaceId, providerId) {
      const row = findProvider(ctx.db, workspaceId, providerId);
      return row ? { connection: connectionOf(ctx, row), chatModel: (row.settings.chat_model as string | undefined) ?? null } : null;
    },
    agentTools(workspaceId, agentId, version) {
      const ids = (configAtVersion(ctx, workspaceId, agentId, version)?.tools ?? []).flatMap((tool) => ("tool_id" in tool ? [tool.tool_id] : []));
      return brains.tools(workspaceId, ids).map((tool) => ({ id: tool.id, name: tool.name }));
    },
  };
}
