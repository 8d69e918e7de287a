import type { AppContext } from "../../core/context.ts";
import { ApiError, invalid, notFound, type FieldError } from "../../http/errors.ts";
import { newId } from "../../lib/ids.ts";
import type { AgentConfig } from "../../voice/agent-config.ts";
import { configOf, type AgentRow } from "../agents/models.ts";
import type { TestCaseDefinition } from "./definition.ts";
import { definitionOf, filledDefinition, MAX_SUITE_CASES, type TestRow } from "./models.ts";
import { agentTestsPorts } from "./ports.ts";
import * as repo from "./repo.ts";
import { caseContext, caseProblems, toolIdsOf, type CaseContext } from "./validate.ts";

/** What the cases of an agent (at a version's configuration) are checked against. */
export function contextOf(ctx: AppContext, workspaceId: string, config: AgentConfig): CaseContext {
  const ports = agentTestsPorts(ctx);
  return caseContext(config, ports.tools(workspaceId, toolIdsOf(config)), (id) => ports.providerKind(workspaceId, id));
}

export function refuse(problems: FieldError[]): ApiError {
  return new ApiError("validation_failed", problems.map((p) => `${p.field}: ${p.message}`).join("; "), { errors: problems });
}

export function checkCase(definition: TestCaseDefinition, context: CaseContext, prefix = ""): void {
  const problems = caseProblems(definition, context, prefix);
  if (problems.length) throw refuse(problems);
}

function agentOf(ctx: AppContext, workspaceId: string, agentId: string): AgentRow {
  return agentTestsPorts(ctx).getAgent(workspaceId, agentId);
}

export function getTest(ctx: AppContext, workspaceId: string, agentId: string, id: string): TestRow {
  agentOf(ctx, workspaceId, agentId);
  const row = repo.findTest(ctx.db, workspaceId, agentId, id);
  if (!row) throw notFound("test case");
  return row;
}

const nameTaken = (name: string) => new ApiError("name_taken", `the agent already has a test case named ${name}`, { errors: [{ field: "name", message: "is taken by another case of this agent" }] });

function stored(definition: TestCaseDefinition): Record<string, unknown> {
  const { name: _name, ...rest } = filledDefinition(definition);
  return rest;
}

export function createTest(ctx: AppContext, workspaceId: string, agentId: string, input: TestCaseDefinition): TestRow {
  const agent = agentOf(ctx, workspaceId, agentId);
  checkCase(input, contextOf(ctx, workspaceId, configOf(agent)));
  const now = ctx.clock.now();
  const row: TestRow = { id: newId("atest"), workspaceId, agentId, name: input.name, definition: stored(input), createdAt: now, updatedAt: now };
  ctx.sqlite.transaction(() => {
    if (repo.findTestByName(ctx.db, agentId, input.name)) throw nameTaken(input.name);
    repo.insertTest(ctx.db, row);
  })();
  return row;
}

/** The fields given replace the stored ones whole; the result is checked as a whole case. */
export function updateTest(ctx: AppContext, workspaceId: string, agentId: string, id: string, changes: Partial<TestCaseDefinition>): TestRow {
  const current = getTest(ctx, workspaceId, agentId, id);
  const definition = { ...definitionOf(current), ...changes } as TestCaseDefinition;
  checkCase(definition, contextOf(ctx, workspaceId, configOf(agentOf(ctx, workspaceId, agentId))));
  const now = ctx.clock.now();
  ctx.sqlite.transaction(() => {
    const holder = repo.findTestByName(ctx.db, agentId, definition.name);
    if (holder && holder.id !== id) throw nameTaken(definition.name);
    repo.updateTest(ctx.db, id, { name: definition.name, definition: stored(definition), updatedAt: now });
  })();
  return getTest(ctx, workspaceId, agentId, id);
}

export function deleteTest(ctx: AppContext, workspaceId: string, agentId: string, id: string): void {
  getTest(ctx, workspaceId, agentId, id);
  repo.deleteTest(ctx.db, id);
}

/** The agent's cases as a suite file (kept in a repository, imported elsewhere, or run inline). */
export function exportSuite(ctx: AppContext, workspaceId: string, agentId: string) {
  agentOf(ctx, workspaceId, agentId);
  const tests = repo.allTests(ctx.db, workspaceId, agentId, Number.MAX_SAFE_INTEGER).map((row) => definitionOf(row));
  return { object: "test_suite" as const, version: 1 as const, agent_id: agentId, tests };
}

/** Checks every case of a list whole (each under `field[i].`), names included: nothing is written unless all pass. */
export function checkCases(cases: TestCaseDefinition[], context: CaseContext, field: string): void {
  const problems: FieldError[] = [];
  const seen = new Map<string, number>();
  cases.forEach((definition, i) => {
    problems.push(...caseProblems(definition, context, `${field}[${i}].`));
    const first = seen.get(definition.name);
    if (first !== undefined) problems.push({ field: `${field}[${i}].name`, message: `repeats the name of ${field}[${first}]: names identify cases across runs` });
    else seen.set(definition.name, i);
  });
  if (problems.length) throw refuse(problems);
}

/** Upserts a suite by case name in one transaction, after checking it whole. */
export function importSuite(ctx: AppContext, workspaceId: string, agentId: string, tests: TestCaseDefinition[]): { created: number; updated: number } {
  const agent = agentOf(ctx, workspaceId, agentId);
  if (tests.length > MAX_SUITE_CASES) throw invalid("tests", `at most ${MAX_SUITE_CASES} cases in a suite`);
  checkCases(tests, contextOf(ctx, workspaceId, configOf(agent)), "tests");
  const now = ctx.clock.now();
  return ctx.sqlite.transaction(() => {
    let created = 0;
    let updated = 0;
    for (const [i, definition] of tests.entries()) {
      const existing = repo.findTestByName(ctx.db, agentId, definition.name);
      if (existing) {
        repo.updateTest(ctx.db, existing.id, { name: definition.name, definition: stored(definition), updatedAt: now });
        updated++;
      } else {
        // A suite keeps its order (cases are listed by creation): each new case a millisecond after the one before.
        repo.insertTest(ctx.db, { id: newId("atest"), workspaceId, agentId, name: definition.name, definition: stored(definition), createdAt: now + i, updatedAt: now });
        created++;
      }
    }
    return { created, updated };
  })();
}

/** How many of the agent's last line's words the case made from a call expects to hear. */
const FROM_CALL_WORDS = 5;

/**
 * A starting point made from a past call of the agent: its caller turns as a script, and expectations
 * that the call ended as it did and that the agent's last line began as it did. The user edits it.
 */
export function testFromCall(ctx: AppContext, workspaceId: string, agentId: string, input: { call_id: string; name?: string }): TestRow {
  agentOf(ctx, workspaceId, agentId);
  let call;
  try {
    call = agentTestsPorts(ctx).getCall(workspaceId, input.call_id);
  } catch {
    throw invalid("call_id", `no call ${input.call_id} in this workspace`);
  }
  if (call.agentId !== agentId) throw invalid("call_id", `call ${input.call_id} was answered by another agent`);
  const transcript = (call.transcript ?? []) as { role: "agent" | "caller"; text: string }[];
  const callerTurns = transcript.filter((turn) => turn.role === "caller" && turn.text.trim());
  const agentTurns = transcript.filter((turn) => turn.role === "agent");
  const lastAgent = agentTurns.at(-1);
  const opening = lastAgent?.text.trim().split(/\s+/).slice(0, FROM_CALL_WORDS).join(" ").replace(/[.,!?;:]+$/, "");
  const expectations: TestCaseDefinition["expectations"] = [{ type: "ended", status: call.status }];
  if (opening) expectations.unshift({ type: "agent_says", turn: agentTurns.length - 1, contains: opening });
  const definition: TestCaseDefinition = {
    name: input.name ?? `From call ${call.id}`,
    description: `Made from call ${call.id}`,
    caller: { type: "script", turns: callerTurns.length ? callerTurns.map((turn) => ({ say: turn.text.trim().slice(0, 2000) })) : [{ hangup: true }] },
    channel: call.direction === "web" ? "web" : "phone",
    ...(call.direction === "inbound" && call.fromNumber && /^\+[1-9]\d{6,14}$/.test(call.fromNumber) ? { from: call.fromNumber } : {}),
    expectations,
  };
  return createTest(ctx, workspaceId, agentId, definition);
}
