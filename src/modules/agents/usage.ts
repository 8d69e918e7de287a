import type { AppContext } from "../../core/context.ts";

/**
 * What still depends on an agent (phone numbers, running campaigns, schedules). Each module that
 * holds such references registers a check, so deleting an agent can say exactly what is in the way.
 */
export type AgentUsageCheck = (ctx: AppContext, workspaceId: string, agentId: string) => string[];

const checks = new Set<AgentUsageCheck>();

export function registerAgentUsageCheck(check: AgentUsageCheck): void {
  checks.add(check);
}

export function agentUsage(ctx: AppContext, workspaceId: string, agentId: string): string[] {
  return [...checks].flatMap((check) => check(ctx, workspaceId, agentId));
}
