import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { rebaseLink } from "../../http/host-brand.ts";
import { OneOf } from "../../http/models.ts";
import { builtinVoices } from "../../voice/speech/builtin/index.ts";
import { agentReadinessProblems } from "../../voice/readiness.ts";
import { offlineRecognition } from "../../voice/speech/engines.ts";
import type { AgentConfig } from "../../voice/agent-config.ts";
import type { WebCalls } from "../../telephony/types.ts";
import { sessionRoutes } from "./session-route.ts";
import type { IssuedToken, TokenRequest } from "./tokens.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

const doc = docsFor("Realtime");

const EngineCheck = t.Object({ status: OneOf(["ok", "unavailable"]), detail: t.String() });

const RealtimeHealth = t.Object({
  object: t.Literal("realtime_health"),
  status: OneOf(["ok", "degraded"], { description: "degraded: an engine is missing or the agent asked about cannot take calls" }),
  engines: t.Object({
    builtin_speech: EngineCheck,
    offline_recognition: t.Object(EngineCheck.properties, { description: "PocketSphinx, carried by the executable or from the OS packages; without it agents need a speech provider to listen" }),
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

const TokenBody = t.Object(
  {
    agent_id: t.String({ description: "The agent the browser will talk to" }),
    variables: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Template variables for the agent's prompt and flow" })),
    metadata: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Kept with the call" })),
    expires_in: t.Optional(t.Integer({ minimum: 10, maximum: 600, description: "Seconds the token waits for its socket (default 60)" })),
  },
  { additionalProperties: false },
);

const SessionToken = t.Object({
  token: t.String({ description: "Single use; pass it as ?token= on the session URL" }),
  expires_in: t.Integer({ description: "Seconds left to open the session" }),
  url: t.String({ description: "The session's WebSocket URL, token included" }),
});

export interface RealtimeServices {
  agentConfig: (workspaceId: string, agentId: string) => AgentConfig;
  realtimeToken: (workspaceId: string, request: TokenRequest) => IssuedToken;
  webCalls: WebCalls;
}

/** Browser voice: session tokens, the session socket, and the voice configuration at a glance. */
export function realtimeRoutes(ctx: HttpContext, services: RealtimeServices) {
  const { agentConfig } = services;
  return new Elysia({ prefix: "/v1/realtime" })
    .use(authPlugin(ctx))
    .post(
      "/token",
      ({ principal, body, request }) => {
        agentConfig(principal.workspaceId, body.agent_id);
        const token = services.realtimeToken(principal.workspaceId, { agentId: body.agent_id, variables: body.variables, metadata: body.metadata, expiresInS: body.expires_in });
        // The socket is opened on the host the browser's page asked (a reseller's verified domain, else the public URL).
        return status(201, { ...token, url: rebaseLink(ctx, request, token.url) });
      },
      {
        auth: "write",
        body: TokenBody,
        response: { 201: SessionToken },
        detail: doc(
          "createRealtimeToken",
          "Token for a browser voice call",
          "A short-lived, single-use token for one browser voice session with the agent, bound to this workspace: hand it to the browser instead of an API key. 409 `agent_not_ready` when the agent cannot hold a live call.",
        ),
      },
    )
    .use(sessionRoutes(ctx, services.webCalls))
    .get(
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

nameSchemas({ RealtimeTokenRequest: TokenBody, RealtimeToken: SessionToken, RealtimeHealth });
