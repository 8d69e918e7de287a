import type { ProviderConnection } from "../../providers/connection.ts";

/** One of the workspace's webhook tools, as a language model is told about it. */
export interface BrainTool {
  id: string;
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ToolCallResult {
  ok: boolean;
  /** What the brain receives: the tool's answer, or an error it can explain to the caller. */
  result: unknown;
}

export interface KnowledgePassage {
  chunk_id: string;
  text: string;
}

/**
 * Everything a brain reaches beyond its own configuration, handed in by whoever sets up the
 * conversation (a call, the playground): brains know no feature's storage.
 */
export interface BrainServices {
  /** The workspace's webhook tools among these ids (missing ones are left out). */
  tools(workspaceId: string, toolIds: string[]): BrainTool[];
  invokeTool(workspaceId: string, toolId: string, args: Record<string, unknown>, context: { agentId: string; callId: string | null }): Promise<ToolCallResult>;
  searchKnowledge(workspaceId: string, knowledgeBaseIds: string[], query: string, options: { topK: number; minScore?: number }): Promise<KnowledgePassage[]>;
  /** The workspace's language-model connection, or null when it no longer exists. */
  languageModel(workspaceId: string, providerId: string): ProviderConnection | null;
  now(): number;
}
