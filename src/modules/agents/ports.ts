import { portPoint } from "../../core/hooks.ts";
import type { ToolInvocation } from "../tools/models.ts";
import type { AttemptRow, DeliveryRow } from "../webhooks/models.ts";

/** What agents reach in other features (workspaces, tools, knowledge bases, webhooks); src/server.ts installs it. */
export interface AgentsPorts {
  /** The workspace's default language, which a new agent speaks unless it says otherwise (404 for no workspace). */
  defaultLanguage(workspaceId: string): string;
  /** Which of these ids are the workspace's tools. */
  existingToolIds(workspaceId: string, ids: string[]): Set<string>;
  /** Which of these ids are the workspace's knowledge bases. */
  existingKnowledgeBaseIds(workspaceId: string, ids: string[]): Set<string>;
  /** Invokes one of the workspace's tools as a live call would; null when it has no such tool. */
  invokeTool(workspaceId: string, toolId: string, args: Record<string, unknown>, context: { agentId: string; callId: string | null }): Promise<ToolInvocation> | null;
  /** The agent's lifecycle webhook channel; each write runs in the caller's transaction. */
  webhook: {
    /** Answers the new signing secret (shown once). */
    create(workspaceId: string, agentId: string, url: string | null, events: string[]): string;
    update(workspaceId: string, agentId: string, url: string | null, events: string[]): void;
    rotateSecret(workspaceId: string, agentId: string): string;
    delete(workspaceId: string, agentId: string): void;
  };
  /** The latest completed test run against a version of the agent (the publish gate), or null. */
  latestTestRun(workspaceId: string, agentId: string, version: number): { id: string; status: string; failed: number; errored: number } | null;
  /** Waits for a test event's first delivery attempt (or its time-out). */
  awaitFirstAttempt(workspaceId: string, eventId: string, deliveryId: string): Promise<{ eventId: string; delivery: DeliveryRow; eventType: string; attempt: AttemptRow | null }>;
}

const ports = portPoint<AgentsPorts>("agents");
export const installAgentsPorts = ports.install;
export const agentsPorts = ports.of;
