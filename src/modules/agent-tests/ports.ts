import { portPoint } from "../../core/hooks.ts";
import type { AgentConfig } from "../../voice/agent-config.ts";
import type { AgentRow } from "../agents/models.ts";
import type { CallRow } from "../calls/models.ts";
import type { CaseVerdict, TestCaseDefinition } from "./definition.ts";

/** One case to run as a call (orchestrator → runner). */
export interface CaseRequest {
  workspaceId: string;
  agentId: string;
  /** The agent version the call runs (a draft too). */
  version: number;
  runId: string;
  resultId: string;
  definition: TestCaseDefinition;
}

/** Runs one case through the whole voice loop and judges it; aborting `signal` hangs its call up. */
export type RunCase = (request: CaseRequest, signal: AbortSignal) => Promise<CaseVerdict>;

/** What agent tests reach in other features (agents, tools, providers, calls, the runner); src/server.ts installs it. */
export interface AgentTestsPorts {
  /** 404 when the workspace has no such agent. */
  getAgent(workspaceId: string, id: string): AgentRow;
  /** Whether the agent has this version (drafts included). */
  versionExists(workspaceId: string, agentId: string, version: number): boolean;
  /** The agent as it was at a version; null once deleted. */
  agentConfigAt(workspaceId: string, agentId: string, version: number): AgentConfig | null;
  /** The workspace's tools among these ids, with the names a model sees. */
  tools(workspaceId: string, ids: string[]): { id: string; name: string }[];
  /** The kind of one of the workspace's provider connections (`openai-compatible` has a language model), or null. */
  providerKind(workspaceId: string, id: string): string | null;
  /** 404 when the workspace has no such call. */
  getCall(workspaceId: string, id: string): CallRow;
  /** The runner (runner/run-case.ts), bound to what it reaches. */
  runCase: RunCase;
}

const ports = portPoint<AgentTestsPorts>("agent-tests");
export const installAgentTestsPorts = ports.install;
export const agentTestsPorts = ports.of;
