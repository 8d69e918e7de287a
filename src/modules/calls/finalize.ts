import { eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { calls } from "../../db/schema/index.ts";
import type { RunningJob } from "../../jobs/runner.ts";
import { connectionOf } from "../../providers/connection.ts";
import { streamChat } from "../../providers/openai/chat.ts";
import { publishWorkspaceEvent } from "../../webhooks/outbox.ts";
import { agentConfigForCall } from "./connect.ts";
import type { AgentConfig } from "../../voice/agent-config.ts";
import { findProvider } from "../../providers/store.ts";
import { addTimelineEvent, findCall, type TurnRecord } from "./lifecycle.ts";
import { callUrls, transcriptText } from "./models.ts";

type Extraction = { extracted: Record<string, unknown>; summary: string | null };

/**
 * After the call: the agent's extraction fields (a model with a JSON schema, or the flow's slots), a
 * summary, and the outcome event for workspace endpoints, all stored before the event goes out.
 */
export async function finalizeCall(ctx: AppContext, job: RunningJob<{ call_id: string; slots: Record<string, unknown> }>): Promise<void> {
  const call = findCall(ctx, job.payload.call_id);
  if (!call || call.extracted !== null) return; // gone, or finalized already: retries are harmless
  // The fields the call was made with: editing the agent mid-call must not change what this call extracts.
  const config = agentConfigForCall(ctx, call);
  const transcript = (call.transcript as TurnRecord[] | null) ?? [];
  let result: Extraction = { extracted: {}, summary: null };
  if (config && !call.erasedAt) {
    result = config.brain.type === "llm" ? await extractWithModel(ctx, call.workspaceId, config, transcript) : extractFromSlots(config, job.payload.slots, transcript, call.endReason);
  }
  ctx.sqlite.transaction(() => {
    ctx.db.update(calls).set({ extracted: result.extracted, summary: result.summary, updatedAt: ctx.clock.now() }).where(eq(calls.id, call.id)).run();
    addTimelineEvent(ctx, call, "extracted", { fields: Object.keys(result.extracted) });
    const type = call.status === "completed" ? "call.completed" : call.status === "transferred" ? "call.transferred" : "call.failed";
    // An agent test's call sends no outcome: a business's CRM must not receive test calls.
    if (!call.testRunId) publishWorkspaceEvent(ctx, {
      workspaceId: call.workspaceId,
      type,
      data: {
        call_id: call.id,
        agent_id: call.agentId,
        direction: call.direction,
        from: call.fromNumber,
        to: call.toNumber,
        status: call.status,
        end_reason: call.endReason,
        started_at: call.answeredAt ? new Date(call.answeredAt).toISOString() : null,
        ended_at: new Date(call.endedAt ?? ctx.clock.now()).toISOString(),
        duration_seconds: Math.round((call.durationMs ?? 0) / 1000),
        // The specification's string; the structured turns travel beside it.
        transcript: call.erasedAt ? "" : transcriptText(transcript),
        transcript_turns: call.erasedAt ? [] : transcript,
        extracted: result.extracted,
        summary: result.summary,
        recording_url: callUrls(ctx.publicUrl, call).recording_url,
        metadata: call.metadata,
        ...(call.status === "transferred" ? { transferred_to: call.transferredTo } : {}),
      },
    });
    job.complete();
  })();
}

function coerce(field: AgentConfig["extraction"][number], value: unknown): unknown {
  if (value === undefined || value === null) return null;
  switch (field.type) {
    case "boolean":
      return typeof value === "boolean" ? value : ["true", "yes"].includes(String(value).toLowerCase());
    case "number": {
      const n = Number(value);
      return Number.isFinite(n) ? n : null;
    }
    case "enum":
      return field.options?.find((o) => o.toLowerCase() === String(value).toLowerCase()) ?? null;
    default:
      return String(value);
  }
}

/** Flow agents: their slots are the data; the summary says what was collected and how it ended. */
function extractFromSlots(config: AgentConfig, slots: Record<string, unknown>, transcript: TurnRecord[], endReason: string | null): Extraction {
  const extracted = Object.fromEntries(config.extraction.map((field) => [field.name, coerce(field, slots[field.name])]));
  const collected = Object.entries(slots).filter(([name]) => name !== "last_question").map(([name, value]) => `${name}: ${typeof value === "object" ? JSON.stringify(value) : value}`);
  const callerTurns = transcript.filter((t) => t.role === "caller").length;
  const spoke = callerTurns === 0 ? "The caller said nothing." : callerTurns === 1 ? "The caller spoke once." : `The caller spoke ${callerTurns} times.`;
  const summary = `${spoke}${collected.length ? ` Collected ${collected.join("; ")}.` : ""} ${howItEnded(endReason)}`;
  return { extracted, summary };
}

const ENDINGS: Record<string, string> = {
  agent_hangup: "The agent ended the call.",
  customer_hangup: "The caller hung up.",
  silence_timeout: "It ended after a long silence.",
  max_duration: "It reached the agent's longest call.",
  voicemail: "An answering machine took it.",
  busy: "The line was busy.",
  no_answer: "Nobody answered.",
  transferred: "It was passed on to another number.",
  error: "An error ended it.",
  server_shutdown: "The server stopped during it.",
  node_lost: "The server node holding it was lost.",
};

/** The last sentence of a flow call's summary, in words (the end_reason code stays on the call). */
function howItEnded(endReason: string | null): string {
  if (!endReason) return "How it ended is not known.";
  return ENDINGS[endReason] ?? `It ended: ${endReason.replace(/_/g, " ")}.`;
}

async function extractWithModel(ctx: AppContext, workspaceId: string, config: AgentConfig, transcript: TurnRecord[]): Promise<Extraction> {
  if (config.brain.type !== "llm") return { extracted: {}, summary: null };
  const row = findProvider(ctx.db, workspaceId, config.brain.provider_id);
  if (!row || transcript.length === 0) return { extracted: Object.fromEntries(config.extraction.map((f) => [f.name, null])), summary: null };
  const properties: Record<string, unknown> = { summary: { type: "string", description: "Two or three sentences on what the call was about and how it ended" } };
  for (const field of config.extraction) {
    properties[field.name] = {
      type: field.type === "enum" ? "string" : field.type,
      description: field.description,
      ...(field.type === "enum" ? { enum: field.options } : {}),
    };
  }
  const conversation = transcript.map((t) => `${t.role === "agent" ? "Agent" : "Caller"}: ${t.text}`).join("\n");
  let text = "";
  try {
    for await (const chunk of streamChat(connectionOf(ctx, row), {
      model: config.brain.model,
      temperature: 0,
      messages: [
        { role: "system", content: "You extract structured data from a phone call transcript. Answer with JSON only. Use null when the call does not say." },
        { role: "user", content: conversation },
      ],
      response_format: { type: "json_schema", json_schema: { name: "call_extraction", schema: { type: "object", properties, required: Object.keys(properties) } } },
    })) {
      if (chunk.type === "text") text += chunk.delta;
    }
  } catch {
    return { extracted: Object.fromEntries(config.extraction.map((f) => [f.name, null])), summary: null };
  }
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text.replace(/^```(?:json)?\s*|\s*```$/g, ""));
  } catch {
    parsed = {};
  }
  return {
    extracted: Object.fromEntries(config.extraction.map((field) => [field.name, coerce(field, parsed[field.name])])),
    summary: typeof parsed.summary === "string" ? parsed.summary : null,
  };
}
