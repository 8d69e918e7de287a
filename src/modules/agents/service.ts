import type { AppContext } from "../../core/context.ts";
import { ApiError, invalid, notFound } from "../../http/errors.ts";
import { newId } from "../../lib/ids.ts";
import { withDefaults, type AgentConfig, type AgentInput } from "../../voice/agent-config.ts";
import { filledTurnTaking, turnTakingProblems } from "../../voice/turns/settings.ts";
import { configOf } from "./models.ts";
import { agentsPorts } from "./ports.ts";
import { agentReferenceProblems } from "./references.ts";
import * as repo from "./repo.ts";

function checkConfig(ctx: AppContext, workspaceId: string, config: AgentConfig): void {
  const problems = [...turnTakingProblems(config.turn_taking), ...agentReferenceProblems(ctx, workspaceId, config)];
  if (problems.length) throw new ApiError("validation_failed", problems.map((p) => `${p.field}: ${p.message}`).join("; "), { errors: problems });
}

/** What is stored: everything but the name (a column), turn_taking filled (a list writes it out as stored). */
function storedConfig(config: AgentConfig): Record<string, unknown> {
  const { name: _name, ...rest } = config;
  return { ...rest, turn_taking: filledTurnTaking(config.turn_taking) };
}

/** Creates the agent, its first version and its lifecycle webhook channel in one transaction. */
export function createAgent(ctx: AppContext, workspaceId: string, input: AgentInput & { name: string }, actor: string | null) {
  const config = withDefaults(input, agentsPorts(ctx).defaultLanguage(workspaceId));
  checkConfig(ctx, workspaceId, config);
  const now = ctx.clock.now();
  const row: repo.AgentRow = { id: newId("agent"), workspaceId, name: config.name, config: storedConfig(config), version: 1, createdAt: now, updatedAt: now };
  const webhookSecret = ctx.sqlite.transaction(() => {
    repo.insertAgent(ctx.db, row);
    repo.insertVersion(ctx.db, { agentId: row.id, version: 1, workspaceId, name: row.name, config: row.config, createdBy: actor, note: "created", draft: false, createdAt: now });
    return agentsPorts(ctx).webhook.create(workspaceId, row.id, config.webhook_url, config.webhook_events);
  })();
  return { row, webhookSecret };
}

export function getAgent(ctx: AppContext, workspaceId: string, id: string): repo.AgentRow {
  const row = repo.findAgent(ctx.db, workspaceId, id);
  if (!row) throw notFound("agent");
  return row;
}

/** An agent named in a request body or query (a call, campaign, schedule…): unknown here is 422 on `agent_id`. */
export function referencedAgent(ctx: AppContext, workspaceId: string, id: string): repo.AgentRow {
  const row = repo.findAgent(ctx.db, workspaceId, id);
  if (!row) throw invalid("agent_id", `no agent ${id} in this workspace`);
  return row;
}

/** An agent as it was at a version (as it is now when that version is gone); null once the agent is deleted. */
export function configAtVersion(ctx: AppContext, workspaceId: string, id: string, version: number): AgentConfig | null {
  const stored = repo.findVersion(ctx.db, workspaceId, id, version) ?? repo.findAgent(ctx.db, workspaceId, id);
  return stored ? configOf(stored) : null;
}

/** A new configuration becomes a new version; the fields given replace the stored ones whole. */
export function updateAgent(ctx: AppContext, workspaceId: string, id: string, changes: AgentInput, actor: string | null, note = "updated") {
  const current = getAgent(ctx, workspaceId, id);
  const config = { ...configOf(current), ...changes } as AgentConfig;
  checkConfig(ctx, workspaceId, config);
  const now = ctx.clock.now();
  ctx.sqlite.transaction(() => {
    const version = repo.maxVersion(ctx.db, workspaceId, id) + 1;
    repo.updateAgentRow(ctx.db, workspaceId, id, { name: config.name, config: storedConfig(config), version, updatedAt: now });
    repo.insertVersion(ctx.db, { agentId: id, version, workspaceId, name: config.name, config: storedConfig(config), createdBy: actor, note, draft: false, createdAt: now });
    agentsPorts(ctx).webhook.update(workspaceId, id, config.webhook_url, config.webhook_events);
  })();
  return getAgent(ctx, workspaceId, id);
}

/** A new version saved as a draft (the live one's fields, the given ones replacing them whole): calls keep the live version until it is published. */
export function createDraftVersion(ctx: AppContext, workspaceId: string, id: string, changes: AgentInput, note: string | undefined, actor: string | null): repo.AgentVersionRow {
  const current = getAgent(ctx, workspaceId, id);
  const config = { ...configOf(current), ...changes } as AgentConfig;
  checkConfig(ctx, workspaceId, config);
  const now = ctx.clock.now();
  return ctx.sqlite.transaction(() => {
    const row: repo.AgentVersionRow = { agentId: id, version: repo.maxVersion(ctx.db, workspaceId, id) + 1, workspaceId, name: config.name, config: storedConfig(config), createdBy: actor, note: note ?? "draft", draft: true, createdAt: now };
    repo.insertVersion(ctx.db, row);
    return row;
  })();
}

/**
 * Makes a stored version live as it is (no new version). With `requirePassingTests` the latest completed
 * test run against that version must have passed: 409 `tests_failing` naming the run, or saying there is none.
 */
export function publishVersion(ctx: AppContext, workspaceId: string, id: string, version: number, options: { requirePassingTests: boolean }) {
  getAgent(ctx, workspaceId, id);
  const stored = repo.findVersion(ctx.db, workspaceId, id, version);
  if (!stored) throw notFound(`version ${version} of this agent`);
  if (options.requirePassingTests) {
    const run = agentsPorts(ctx).latestTestRun(workspaceId, id, version);
    if (!run) throw new ApiError("tests_failing", `no completed test run against version ${version}: run the agent's tests against it first (POST /v1/agents/${id}/test-runs with "version": ${version})`);
    if (run.status !== "passed") throw new ApiError("tests_failing", `the latest test run against version ${version}, ${run.id}, ${run.status}: ${run.failed} failed, ${run.errored} errored`);
  }
  const config = configOf(stored);
  // References may have gone since the draft was saved (a deleted tool): checked again like any update.
  checkConfig(ctx, workspaceId, config);
  ctx.sqlite.transaction(() => {
    repo.updateAgentRow(ctx.db, workspaceId, id, { name: stored.name, config: stored.config, version, updatedAt: ctx.clock.now() });
    repo.markPublished(ctx.db, workspaceId, id, version);
    agentsPorts(ctx).webhook.update(workspaceId, id, config.webhook_url, config.webhook_events);
  })();
  return getAgent(ctx, workspaceId, id);
}

export function restoreVersion(ctx: AppContext, workspaceId: string, id: string, version: number, actor: string | null) {
  getAgent(ctx, workspaceId, id);
  const old = repo.findVersion(ctx.db, workspaceId, id, version);
  if (!old) throw notFound(`version ${version} of this agent`);
  // References may have gone since (a deleted tool): checked again like any update.
  return updateAgent(ctx, workspaceId, id, { ...(old.config as AgentInput), name: old.name }, actor, `restored from version ${version}`);
}

export function duplicateAgent(ctx: AppContext, workspaceId: string, id: string, name: string | undefined, actor: string | null) {
  const source = configOf(getAgent(ctx, workspaceId, id));
  return createAgent(ctx, workspaceId, { ...source, name: name ?? `${source.name} (copy)` }, actor);
}

/**
 * Refused while something still routes calls to it, naming what. `usage` says what depends on the
 * agent (numbers, campaigns, schedules: features above this one, asked through the composition root).
 */
export function deleteAgent(ctx: AppContext, workspaceId: string, id: string, usage: (workspaceId: string, agentId: string) => string[]): void {
  getAgent(ctx, workspaceId, id);
  const inUse = usage(workspaceId, id);
  if (inUse.length) throw new ApiError("agent_in_use", `the agent is still in use: ${inUse.join("; ")}`);
  ctx.sqlite.transaction(() => {
    repo.deleteAgentRow(ctx.db, workspaceId, id);
    agentsPorts(ctx).webhook.delete(workspaceId, id);
  })();
}
