import { Elysia, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { OneOf } from "../../http/models.ts";
import { builtinVoices } from "../../voice/speech/builtin/index.ts";
import { agentReadinessProblems } from "../../voice/readiness.ts";
import { offlineRecognition } from "../../voice/speech/engines.ts";
import type { AgentConfig } from "../../voice/agent-config.ts";

const doc = docsFor("Realtime");

const EngineCheck = t.Object({ status: OneOf(["ok", "unavailable"]), detail: t.String() });

const RealtimeHealth = t.Object({
  object: t.Literal("realtime_health"),
  status: OneOf(["ok", "degraded"], { description: "degraded: an engine is missing or the agent asked about cannot take calls" }),
  engines: t.Object({
    builtin_speech: EngineCheck,
    offline_recognition: t.Object(EngineCheck.properties, { description: "PocketSphinx from the OS packages; without it agents need a speech provider to listen" }),
  }),
  agent: t.Union(
    [
      t.Object({
        id: t.String(),
        ready: t.Boolean(),
        problems: t.Array(t.Object({ field: t.String(), message: t.String() }), { description: "What stops it from holding a call, field by field" }),
      }),
      t.Null(),
    ],
    { description: "With `agent_id`: whether that agent can hold a live call now" },
  ),
});

/** Voice configuration at a glance: the engines this instance has, and whether an agent can talk. */
export function realtimeRoutes(ctx: HttpContext, agentConfig: (workspaceId: string, agentId: string) => AgentConfig) {
  return new Elysia({ prefix: "/v1/realtime" }).use(authPlugin(ctx)).get(
    "/health",
    ({ principal, query }) => {
      const voices = builtinVoices();
      const offline = offlineRecognition();
      let agent: { id: string; ready: boolean; problems: { field: string; message: string }[] } | null = null;
      if (query.agent_id) {
        const config = agentConfig(principal.workspaceId, query.agent_id);
        // Real callers, not the simulated carrier's scripted ones: the recogniser must really exist.
        const problems = agentReadinessProblems(ctx, principal.workspaceId, config, { simulatedRecognition: false });
        agent = { id: query.agent_id, ready: problems.length === 0, problems };
      }
      return {
        object: "realtime_health" as const,
        status: offline.available && (agent?.ready ?? true) ? ("ok" as const) : ("degraded" as const),
        engines: {
          builtin_speech: { status: "ok" as const, detail: `Flite, inside the executable: ${voices.map((voice) => voice.id).join(", ")}` },
          offline_recognition: { status: offline.available ? ("ok" as const) : ("unavailable" as const), detail: offline.detail },
        },
        agent,
      };
    },
    {
      auth: "read",
      query: t.Object({ agent_id: t.Optional(t.String({ description: "Also check this agent's voice, recogniser and brain" })) }),
      response: { 200: RealtimeHealth },
      detail: doc("getRealtimeHealth", "Check voice configuration"),
    },
  );
}
