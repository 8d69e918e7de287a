import type { FieldError } from "../../http/errors.ts";
import { BUILTIN_TOOLS, type AgentConfig } from "../../voice/agent-config.ts";
import { decodeWav } from "../../voice/media/wav-format.ts";
import type { TestCaseDefinition } from "./definition.ts";

/** What a case is checked against: the agent's tools (ids and names), its extraction fields, the workspace's connections. */
export interface CaseContext {
  tools: { id: string; name: string }[];
  extractionFields: string[];
  /** The kind of one of the workspace's provider connections, or null when it has none by that id. */
  providerKind(id: string): string | null;
}

const ACTIONS = ["say", "audio", "dtmf", "pause_ms", "silence_ms", "hangup"] as const;
const LANGUAGE_MODEL_KIND = "openai-compatible";

/** The tool ids an agent's configuration names (its tools, and the tool steps of a flow). */
export function toolIdsOf(config: AgentConfig): string[] {
  return [...new Set([...JSON.stringify(config).matchAll(/"tool_id":"(tool_[A-Za-z0-9]+)"/g)].map((match) => match[1]))];
}

export function caseContext(config: AgentConfig, tools: { id: string; name: string }[], providerKind: (id: string) => string | null): CaseContext {
  return { tools, extractionFields: config.extraction.map((field) => field.name), providerKind };
}

/**
 * Everything the schema cannot say about a case, one problem per field, named under `prefix`
 * (`tests[3].` in an import, `cases[0].` in a run): each expectation must be one that can be evaluated.
 */
export function caseProblems(definition: TestCaseDefinition, context: CaseContext, prefix = ""): FieldError[] {
  const problems: FieldError[] = [];
  const add = (field: string, message: string) => problems.push({ field: `${prefix}${field}`, message });
  const caller = definition.caller as TestCaseDefinition["caller"] | undefined;
  if (!caller) add("caller", "a case needs a caller: a script of turns or a model-played caller");
  else if (caller.type === "script") {
    caller.turns.forEach((turn, i) => {
      const given = ACTIONS.filter((action) => turn[action] !== undefined);
      if (given.length !== 1) add(`caller.turns[${i}]`, `a turn does exactly one of ${ACTIONS.join(", ")} (this one: ${given.length ? given.join(", ") : "none"})`);
      if (turn.audio !== undefined) {
        const problem = wavProblem(turn.audio);
        if (problem) add(`caller.turns[${i}].audio`, problem);
      }
      if ((turn.barge_in || turn.barge_in_after_ms !== undefined) && turn.say === undefined && turn.audio === undefined) add(`caller.turns[${i}].barge_in`, "only a turn that says something (say or audio) can talk over the agent");
    });
  } else {
    const kind = context.providerKind(caller.provider_id);
    if (kind === null) add("caller.provider_id", `no provider connection ${caller.provider_id} in this workspace`);
    else if (kind !== LANGUAGE_MODEL_KIND) add("caller.provider_id", `a ${kind} connection has no language model to play the caller`);
  }
  const knownTool = (tool: string) => context.tools.some((t) => t.id === tool || t.name === tool) || (BUILTIN_TOOLS as readonly string[]).includes(tool);
  const toolNames = () => [...context.tools.map((t) => t.name), ...BUILTIN_TOOLS].join(", ");
  (definition.tool_mocks ?? []).forEach((mock, i) => {
    if (!context.tools.some((t) => t.id === mock.tool || t.name === mock.tool)) add(`tool_mocks[${i}].tool`, `the agent has no tool ${mock.tool} to mock (its tools: ${context.tools.map((t) => t.name).join(", ") || "none"})`);
  });
  definition.expectations.forEach((expectation, i) => {
    const at = `expectations[${i}]`;
    switch (expectation.type) {
      case "agent_says": {
        const given = (["contains", "regex", "rubric"] as const).filter((key) => expectation[key] !== undefined);
        if (given.length !== 1) add(at, `agent_says takes exactly one of contains, regex, rubric (this one: ${given.length ? given.join(", ") : "none"})`);
        if (expectation.regex !== undefined) {
          try {
            new RegExp(expectation.regex, "i");
          } catch (error) {
            add(`${at}.regex`, `does not compile: ${(error as Error).message}`);
          }
        }
        if (expectation.rubric !== undefined) {
          if (!expectation.judge_provider_id) add(`${at}.judge_provider_id`, "a rubric is judged by a language model: name one of the workspace's connections");
        }
        if (expectation.judge_provider_id !== undefined) {
          const kind = context.providerKind(expectation.judge_provider_id);
          if (kind === null) add(`${at}.judge_provider_id`, `no provider connection ${expectation.judge_provider_id} in this workspace`);
          else if (kind !== LANGUAGE_MODEL_KIND) add(`${at}.judge_provider_id`, `a ${kind} connection has no language model to judge with`);
        }
        break;
      }
      case "tool_called":
        if (!knownTool(expectation.tool)) add(`${at}.tool`, `the agent has no tool ${expectation.tool} (its tools: ${toolNames()})`);
        break;
      case "extracted":
        if (!context.extractionFields.includes(expectation.field)) add(`${at}.field`, `the agent extracts no field ${expectation.field} (its fields: ${context.extractionFields.join(", ") || "none"})`);
        break;
      case "ended":
        if (expectation.status === undefined && expectation.end_reason === undefined) add(at, "ended takes status, end_reason or both");
        break;
      case "goal_reached":
        if (caller?.type !== "model") add(at, "goal_reached needs a model-played caller (only it says when its goal is reached)");
        break;
    }
  });
  return problems;
}

/** Why base64 text is not a WAV the caller can play (16-bit PCM at 8–48 kHz; of several channels it plays the first), or null. */
function wavProblem(base64: string): string | null {
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(Buffer.from(base64, "base64"));
  } catch {
    return "is not base64";
  }
  try {
    const { info } = decodeWav(bytes);
    if (info.sampleRate < 8000 || info.sampleRate > 48000) return `has a sample rate of ${info.sampleRate} Hz; 8000–48000 Hz`;
    if (info.frames === 0) return "holds no audio";
    return null;
  } catch (error) {
    return `is not a WAV file (base64 of 16-bit PCM): ${(error as Error).message}`;
  }
}
