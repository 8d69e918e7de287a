import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { invalid } from "../../http/errors.ts";
import { IdParam, NoContent, noContent } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { TestCaseInput } from "./definition.ts";
import { AgentTest, AgentTestUpdate, FromCall, ImportResult, RunCreate, RunParams, SuiteImport, TestParams, TestRun, TestRunWithResults, TestSuite, runJson, testJson } from "./models.ts";
import { agentTestsPorts } from "./ports.ts";
import * as repo from "./repo.ts";
import { cancelRun, createRun, getRun, runWithResults } from "./runs.ts";
import * as service from "./service.ts";

const doc = docsFor("Agent tests");

/** An agent's test cases and their runs (README "Testing your agents"). */
export function agentTestRoutes(ctx: HttpContext) {
  const actor = (p: { userId: string | null; apiKeyId: string | null }) => p.userId ?? p.apiKeyId;
  const ports = agentTestsPorts(ctx);
  return new Elysia({ prefix: "/v1/agents" })
    .use(authPlugin(ctx))
    .post("/:id/tests", ({ principal, params, body }) => status(201, testJson(service.createTest(ctx, principal.workspaceId, params.id, body))), {
      auth: "write",
      params: IdParam,
      body: TestCaseInput,
      response: { 201: AgentTest },
      detail: doc("createAgentTest", "Create a test case", "A scripted or model-played caller and what the agent must do; every expectation is checked to be one that can be evaluated."),
    })
    .get(
      "/:id/tests",
      ({ principal, params, query }) => {
        ports.getAgent(principal.workspaceId, params.id);
        const page = pageRequest(query);
        const rows = repo.listTests(ctx.db, principal.workspaceId, params.id, page);
        return toPage(rows, page, (row) => ({ at: row.createdAt, id: row.id }), testJson);
      },
      { auth: "read", params: IdParam, query: t.Object(listQuery), response: { 200: ListOf(AgentTest) }, detail: doc("listAgentTests", "List test cases") },
    )
    .get("/:id/tests/export", ({ principal, params }) => service.exportSuite(ctx, principal.workspaceId, params.id), {
      auth: "read",
      params: IdParam,
      response: { 200: TestSuite },
      detail: doc("exportAgentTests", "Export the test cases as a suite file", "Keep it in a repository; run it inline (`cases` of POST /test-runs) or import it into another agent."),
    })
    .post(
      "/:id/tests/import",
      ({ principal, params, body }) => ({ object: "test_suite_import" as const, ...service.importSuite(ctx, principal.workspaceId, params.id, body.tests) }),
      {
        auth: "write",
        params: IdParam,
        body: SuiteImport,
        response: { 200: ImportResult },
        detail: doc("importAgentTests", "Import a suite file", "Upserts the cases by name in one transaction, after checking the whole suite (422 naming `tests[i]…`)."),
      },
    )
    .post("/:id/tests/from-call", ({ principal, params, body }) => status(201, testJson(service.testFromCall(ctx, principal.workspaceId, params.id, body))), {
      auth: "write",
      params: IdParam,
      body: FromCall,
      response: { 201: AgentTest },
      detail: doc("createAgentTestFromCall", "Make a test case from a past call", "The call's caller turns become a script; the expectations say it ended as it did and the agent's last line began as it did. A starting point to edit."),
    })
    .get("/:id/tests/:test_id", ({ principal, params }) => testJson(service.getTest(ctx, principal.workspaceId, params.id, params.test_id)), {
      auth: "read",
      params: TestParams,
      response: { 200: AgentTest },
      detail: doc("getAgentTest", "Get a test case"),
    })
    .patch(
      "/:id/tests/:test_id",
      ({ principal, params, body }) => {
        if (Object.keys(body).length === 0) throw invalid("body", "name at least one field to change");
        return testJson(service.updateTest(ctx, principal.workspaceId, params.id, params.test_id, body));
      },
      { auth: "write", params: TestParams, body: AgentTestUpdate, response: { 200: AgentTest }, detail: doc("updateAgentTest", "Update a test case", "The fields given replace the stored ones whole.") },
    )
    .delete(
      "/:id/tests/:test_id",
      ({ principal, params }) => {
        service.deleteTest(ctx, principal.workspaceId, params.id, params.test_id);
        return noContent();
      },
      { auth: "write", params: TestParams, response: { 204: NoContent }, detail: doc("deleteAgentTest", "Delete a test case") },
    )
    .post(
      "/:id/test-runs",
      ({ principal, params, body }) => {
        const run = createRun(ctx, principal.workspaceId, params.id, body ?? {}, actor(principal));
        return status(202, runJson(run, { queued: run.total, running: 0, canceled: 0 }));
      },
      {
        auth: "write",
        params: IdParam,
        body: t.Optional(RunCreate),
        response: { 202: TestRun },
        detail: doc(
          "createAgentTestRun",
          "Run test cases",
          "Runs the agent's cases (all, `test_ids`, or `cases` sent inline) against a version (default the live one) as real simulated calls, `concurrency` at a time; the rest wait queued. Test calls are not billed, counted in analytics or listed with the calls unless asked for. `test_run.completed` goes to subscribed endpoints when it ends.",
        ),
      },
    )
    .get(
      "/:id/test-runs",
      ({ principal, params, query }) => {
        ports.getAgent(principal.workspaceId, params.id);
        const page = pageRequest(query);
        const rows = repo.listRuns(ctx.db, principal.workspaceId, params.id, page);
        const counts = repo.progressCounts(ctx.db, rows.slice(0, page.limit).map((row) => row.id));
        return toPage(rows, page, (row) => ({ at: row.createdAt, id: row.id }), (row) => runJson(row, counts.get(row.id)!));
      },
      { auth: "read", params: IdParam, query: t.Object(listQuery), response: { 200: ListOf(TestRun) }, detail: doc("listAgentTestRuns", "List test runs, newest first") },
    )
    .get("/:id/test-runs/:run_id", ({ principal, params }) => runWithResults(ctx, getRun(ctx, principal.workspaceId, params.id, params.run_id)), {
      auth: "read",
      params: RunParams,
      response: { 200: TestRunWithResults },
      detail: doc("getAgentTestRun", "Get a test run with each case's result", "Per case: pass/fail, the failed expectations and why, the transcript, per-turn latency, the call and its recording, and a diff against the case's previous result."),
    })
    .post("/:id/test-runs/:run_id/cancel", ({ principal, params }) => runWithResults(ctx, cancelRun(ctx, principal.workspaceId, params.id, params.run_id)), {
      auth: "write",
      params: RunParams,
      response: { 200: TestRunWithResults },
      detail: doc("cancelAgentTestRun", "Cancel a test run", "Cases not started are canceled; live test calls are hung up."),
    });
}
