// Tries one of the agent's saved webhook functions with sample arguments, as a live call would invoke
// it: what was sent, what came back, and what the brain would receive. Inside the settings form, so it
// has no <form> of its own (its button is not a submit).
import { useState } from "preact/hooks";
import type { Agent, Tool, ToolInvocation } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { SelectField, TextAreaField } from "../../ui/field.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
import { jsonObject } from "./form-kit.tsx";

/** Sample arguments from the tool's parameter schema: each property with an empty value of its type. */
function sampleArguments(tool: Tool | undefined): string {
  const samples: Record<string, string | number | boolean | null> = { string: "", number: 0, integer: 0, boolean: false };
  const properties = (tool?.parameters.properties ?? {}) as Record<string, { type?: string }>;
  return JSON.stringify(Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, samples[schema.type ?? ""] ?? null])), null, 2);
}

const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value, null, 2));

export function TestFunction({ agent, tools }: { agent: Agent; tools: Tool[] }) {
  const attached = tools.filter((tool) => agent.tools.some((t) => t.type === "function" && t.tool_id === tool.id));
  const [toolId, setToolId] = useState("");
  const [args, setArgs] = useState<string | null>(null);
  const [badJson, setBadJson] = useState(false);
  const [outcome, setOutcome] = useState<ToolInvocation | null>(null);
  const action = useAction();
  if (attached.length === 0) return <p class="hint">Attach a function and save to try it here.</p>;
  const chosen = attached.find((tool) => tool.id === toolId) ?? attached[0];
  const text = args ?? sampleArguments(chosen);
  const run = async () => {
    const parsed = jsonObject(text || "{}");
    setBadJson(!parsed);
    if (!parsed) return;
    setOutcome(null);
    await action.run(async () => setOutcome(await session.client.agents.testFunction(agent.id, { tool_id: chosen.id, arguments: parsed })));
  };
  const fields = action.problem?.fields ?? {};
  return (
    <div class="agents-tester" role="group" aria-labelledby="agents-tester-title">
      <h3 id="agents-tester-title">Try a function</h3>
      <ProblemNotice problem={action.problem} />
      <SelectField label="Function to try" name="tool_id" value={chosen.id} error={fields.tool_id} onChange={(id) => (setToolId(id), setArgs(null), setOutcome(null))} options={attached.map((tool) => ({ value: tool.id, label: tool.name }))} />
      <TextAreaField label="Arguments (JSON)" name="arguments" rows={4} value={text} error={badJson ? "Write a JSON object, e.g. {\"order_id\": \"A-17\"}." : fields.arguments} onInput={(e) => setArgs(e.currentTarget.value)} />
      <button type="button" class="button secondary agents-inline" disabled={action.busy} onClick={run}>
        {action.busy ? "Calling the function…" : `Try ${chosen.name}`}
      </button>
      {outcome && (
        <dl class="agents-outcome" aria-live="polite">
          <div>
            <dt>Answer</dt>
            <dd>{outcome.response ? `HTTP ${outcome.response.status}` : "None"} in {outcome.latency_ms} ms</dd>
          </div>
          {outcome.error && (
            <div>
              <dt>Error</dt>
              <dd class="status-bad">{outcome.error}</dd>
            </div>
          )}
          <div>
            <dt>The agent receives</dt>
            <dd>
              <pre>{show(outcome.result)}</pre>
            </dd>
          </div>
          <div>
            <dt>Sent to</dt>
            <dd>
              <code>{outcome.request.url}</code>
            </dd>
          </div>
        </dl>
      )}
    </div>
  );
}
