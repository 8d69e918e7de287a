// One test case, new or saved: the form for the common parts, or the whole definition as JSON (a model
// caller, tool mocks, anything the form does not show). Saving names the API's refused fields beside them
// and lists them by path; a saved case can be run alone or deleted after confirming.
import { useEffect, useState } from "preact/hooks";
import type { Agent } from "../../../../sdk/ts/src/index.ts";
import { navigate } from "../../../lib/router.ts";
import { useAction } from "../../../lib/use-action.ts";
import { useLoad } from "../../../lib/use-load.ts";
import { useConfirm } from "../../../ui/confirm.tsx";
import { TextAreaField } from "../../../ui/field.tsx";
import { Link } from "../../../ui/link.tsx";
import { LoadState, ProblemNotice, Success } from "../../../ui/status.tsx";
import { Tabs } from "../../../ui/tabs.tsx";
import { DangerButton } from "../../../ui/actions.tsx";
import { allProviders } from "../create-agent.tsx";
import { jsonObject, type Errors } from "../form-kit.tsx";
import { testsApi, type AgentTest, type TestCaseInput } from "./api.ts";
import { definitionOf, newCase, withoutEmpty } from "./case-draft.ts";
import { CaseForm } from "./case-form.tsx";
import { testsPath } from "./paths.ts";

const asJson = (draft: TestCaseInput) => JSON.stringify(draft, null, 2);

async function loadCase(agentId: string, caseId: string) {
  const [test, providers] = await Promise.all([caseId === "new" ? null : testsApi.get(agentId, caseId), allProviders()]);
  return { test, providers };
}

export function CaseEditor({ agent, caseId }: { agent: Agent; caseId: string }) {
  const [loaded, reload] = useLoad(() => loadCase(agent.id, caseId), [agent.id, caseId]);
  return (
    <section aria-labelledby="tests-case-title">
      <p>
        <Link href={testsPath(agent.id)}>← All tests</Link>
      </p>
      <LoadState state={loaded} label="Loading the test…" onRetry={reload} />
      {/* Keyed by the case loaded (not the URL's): after a create the URL moves before the case is read again. */}
      {loaded.status === "ready" && <CaseEditorForm key={loaded.data.test?.id ?? "new"} agent={agent} test={loaded.data.test} providers={loaded.data.providers} />}
    </section>
  );
}

function CaseEditorForm({ agent, test, providers }: { agent: Agent; test: AgentTest | null; providers: Awaited<ReturnType<typeof allProviders>> }) {
  const [draft, setDraft] = useState<TestCaseInput>(() => (test ? definitionOf(test) : newCase()));
  const [variables, setVariables] = useState(() => JSON.stringify(draft.variables ?? {}));
  const [view, setView] = useState("form");
  const [json, setJson] = useState("");
  const [badJson, setBadJson] = useState(false);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  const confirm = useConfirm();
  useEffect(() => setSaved(false), [draft, json]);
  const errors: Errors = action.problem?.fields ?? {};

  /** The definition the current view holds; null (with the error shown) when it does not read. */
  const current = (): TestCaseInput | null => {
    if (view === "json") {
      const parsed = jsonObject(json);
      setBadJson(!parsed);
      return parsed as TestCaseInput | null;
    }
    const vars = jsonObject(variables.trim() || "{}");
    return vars ? { ...draft, variables: vars as TestCaseInput["variables"] } : null;
  };
  const switchView = (next: string) => {
    if (next === view) return;
    const definition = current();
    if (!definition) return;
    if (next === "json") setJson(asJson(definition));
    else (setDraft(definition), setVariables(JSON.stringify(definition.variables ?? {})));
    setView(next);
  };
  const save = async (event: Event) => {
    event.preventDefault();
    const definition = current();
    if (!definition) return;
    const body = withoutEmpty(definition);
    const ok = await action.run(async () => {
      const stored = test ? await testsApi.update(agent.id, test.id, body) : await testsApi.create(agent.id, body);
      if (!test) navigate(testsPath(agent.id, { case: stored.id }), { replace: true });
    });
    setSaved(ok);
  };
  const run = async () => {
    if (test) await action.run(async () => navigate(testsPath(agent.id, { run: (await testsApi.run(agent.id, { test_ids: [test.id] })).id })));
  };
  const remove = async () => {
    if (!test || !(await confirm.ask({ title: `Delete the test “${test.name}”?`, message: "The case is deleted; its past results stay in the runs that have them.", action: "Delete test" }))) return;
    if (await action.run(() => testsApi.remove(agent.id, test.id))) navigate(testsPath(agent.id));
  };
  // Listed by path too: the JSON view has no fields, and the form does not show a model caller or tool mocks.
  const listed = Object.entries(errors);
  return (
    <form onSubmit={save} noValidate aria-labelledby="tests-case-title">
      <div class="agents-row">
        <h2 id="tests-case-title">{test ? `Test “${test.name}”` : "New test"}</h2>
        {test && (
          <div class="agents-row">
            <button type="button" class="button secondary" disabled={action.busy} onClick={run}>Run this test</button>
            <DangerButton disabled={action.busy} onClick={remove}>Delete</DangerButton>
          </div>
        )}
      </div>
      <ProblemNotice problem={action.problem} />
      {listed.length > 0 && (
        <ul class="agents-errors" aria-label="Fields the server refused">
          {listed.map(([field, message]) => (
            <li key={field}><code>{field}</code>: {message}</li>
          ))}
        </ul>
      )}
      <Tabs label="Edit the test as" tabs={[{ id: "form", label: "Form" }, { id: "json", label: "JSON" }]} current={view} onSelect={switchView}>
        {view === "form" ? (
          <CaseForm draft={draft} onChange={setDraft} variables={variables} onVariables={setVariables} errors={errors} agent={agent} providers={providers} />
        ) : (
          <TextAreaField label="The whole test (JSON)" name="definition" rows={24} value={json} error={badJson ? "This is not a JSON object: fix it to save or to go back to the form." : undefined} onInput={(e) => setJson(e.currentTarget.value)} />
        )}
      </Tabs>
      <div class="agents-savebar">
        {saved && <Success>Saved.</Success>}
        <button type="submit" class="button primary" disabled={action.busy}>{action.busy ? "Saving…" : test ? "Save test" : "Create test"}</button>
      </div>
      {confirm.dialog}
    </form>
  );
}
