import type { AppContext } from "../core/context.ts";
import type { FieldError } from "../http/errors.ts";
import { findProvider } from "../providers/store.ts";
import type { AgentConfig } from "./agent-config.ts";
import { builtinVoices } from "./speech/builtin/index.ts";
import { offlineRecognition, sttFor, ttsFor } from "./speech/engines.ts";

/**
 * What stops an agent from holding a call, one sentence per problem (empty: ready). A simulated call
 * that may use the simulated recogniser does not need an offline recogniser installed.
 */
export function agentReadinessProblems(ctx: AppContext, workspaceId: string, config: AgentConfig, options: { simulatedRecognition: boolean }): FieldError[] {
  const problems: FieldError[] = [];
  const add = (field: string, message: string) => problems.push({ field, message });
  if (config.brain.type === "llm") {
    const row = findProvider(ctx.db, workspaceId, config.brain.provider_id);
    if (!row) add("brain.provider_id", `the language-model connection ${config.brain.provider_id} no longer exists`);
    else if (row.kind !== "openai-compatible") add("brain.provider_id", `a ${row.kind} connection has no language model`);
  }
  if (config.voice.provider_id === "builtin") {
    if (!builtinVoices().some((v) => v.id === config.voice.voice_id)) add("voice.voice_id", `the built-in engine has no voice ${config.voice.voice_id}`);
  } else {
    try {
      ttsFor(ctx, workspaceId, config.voice.provider_id);
    } catch (error) {
      add("voice.provider_id", (error as Error).message);
    }
  }
  if (config.transcriber.provider_id === "builtin") {
    const offline = offlineRecognition();
    if (!offline.available && !options.simulatedRecognition) add("transcriber.provider_id", offline.detail);
  } else {
    try {
      sttFor(ctx, workspaceId, config.transcriber);
    } catch (error) {
      add("transcriber.provider_id", (error as Error).message);
    }
  }
  if (config.brain.type === "llm" && !config.first_message && config.first_message_mode === "agent_first" && !config.system_prompt.trim()) {
    add("first_message", "an llm agent that speaks first needs a greeting or a system_prompt");
  }
  return problems;
}
