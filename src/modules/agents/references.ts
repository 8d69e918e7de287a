import type { AppContext } from "../../core/context.ts";
import type { FieldError } from "../../http/errors.ts";
import { flowProblems } from "../../voice/brains/flow/schema.ts";
import { findProvider, type ProviderKind } from "../../providers/store.ts";
import { checkOutboundUrlField } from "../../http/url-field.ts";
import type { AgentConfig } from "../../voice/agent-config.ts";
import { agentsPorts } from "./ports.ts";

/** Which provider kinds can serve each role (builtin serves every one). */
const ROLE_KINDS: Record<"llm" | "voice" | "transcriber", ProviderKind[]> = {
  llm: ["openai-compatible"],
  voice: ["openai-compatible", "elevenlabs"],
  transcriber: ["openai-compatible", "deepgram"],
};

/**
 * Everything the schema cannot see: ids that must exist in this workspace, provider kinds that must
 * fit their role, a flow whose nodes lead somewhere, a webhook URL the URL rules accept.
 */
export function agentReferenceProblems(ctx: AppContext, workspaceId: string, config: AgentConfig): FieldError[] {
  const problems: FieldError[] = [];
  const provider = (field: string, id: string, role: keyof typeof ROLE_KINDS, allowBuiltin: boolean) => {
    if (id === "builtin") {
      if (!allowBuiltin) problems.push({ field, message: "the built-in engines have no language model; use an openai-compatible provider or a flow brain" });
      return;
    }
    const row = findProvider(ctx.db, workspaceId, id);
    if (!row) problems.push({ field, message: `no provider connection ${id} in this workspace` });
    else if (!ROLE_KINDS[role].includes(row.kind)) problems.push({ field, message: `a ${row.kind} connection cannot serve as ${role}; use ${ROLE_KINDS[role].join(" or ")}` });
  };

  if (config.brain.type === "llm") provider("brain.provider_id", config.brain.provider_id, "llm", false);
  provider("voice.provider_id", config.voice.provider_id, "voice", true);
  provider("transcriber.provider_id", config.transcriber.provider_id, "transcriber", true);

  const toolIds = new Set<string>();
  config.tools.forEach((tool) => "tool_id" in tool && toolIds.add(tool.tool_id));
  if (config.brain.type === "flow") for (const node of Object.values(config.brain.flow.nodes)) if (node.type === "tool") toolIds.add(node.tool_id);
  const knownTools = agentsPorts(ctx).existingToolIds(workspaceId, [...toolIds]);
  config.tools.forEach((tool, i) => {
    if ("tool_id" in tool && !knownTools.has(tool.tool_id)) problems.push({ field: `tools[${i}].tool_id`, message: `no tool ${tool.tool_id} in this workspace` });
  });

  const kbIds = new Set(config.knowledge_base_ids);
  if (config.brain.type === "flow") for (const node of Object.values(config.brain.flow.nodes)) if (node.type === "answer") node.knowledge_base_ids?.forEach((id) => kbIds.add(id));
  const knownKbs = agentsPorts(ctx).existingKnowledgeBaseIds(workspaceId, [...kbIds]);
  config.knowledge_base_ids.forEach((id, i) => {
    if (!knownKbs.has(id)) problems.push({ field: `knowledge_base_ids[${i}]`, message: `no knowledge base ${id} in this workspace` });
  });

  if (config.brain.type === "flow") {
    problems.push(...flowProblems(config.brain.flow, "brain.flow"));
    for (const [id, node] of Object.entries(config.brain.flow.nodes)) {
      if (node.type === "tool" && !knownTools.has(node.tool_id)) problems.push({ field: `brain.flow.nodes.${id}.tool_id`, message: `no tool ${node.tool_id} in this workspace` });
      if (node.type === "answer") {
        node.knowledge_base_ids?.forEach((kb, i) => {
          if (!knownKbs.has(kb)) problems.push({ field: `brain.flow.nodes.${id}.knowledge_base_ids[${i}]`, message: `no knowledge base ${kb} in this workspace` });
        });
      }
      if (node.type === "transfer" && !node.number && !config.transfer_number) {
        problems.push({ field: `brain.flow.nodes.${id}.number`, message: "needs a number, or set the agent's transfer_number" });
      }
    }
  }

  config.extraction.forEach((field, i) => {
    if (field.type === "enum" && !field.options?.length) problems.push({ field: `extraction[${i}].options`, message: "an enum field needs options" });
  });
  if (config.tools.some((tool) => tool.type === "transfer_call") && !config.transfer_number) {
    problems.push({ field: "transfer_number", message: "the transfer_call tool needs a transfer_number" });
  }
  if (config.webhook_url) {
    try {
      checkOutboundUrlField(ctx, "webhook_url", config.webhook_url);
    } catch (error) {
      problems.push(...((error as { extra?: { errors?: FieldError[] } }).extra?.errors ?? [{ field: "webhook_url", message: (error as Error).message }]));
    }
  }
  return problems;
}
