// Every setting of an agent in one form, in sections: what it says, its brain (a flow, or a language
// model), voice, transcriber, turn-taking, voicemail, tools, knowledge bases and extraction. Saving sends
// the whole configuration (a new version) and the metadata; "Save as draft" saves it as a version that is
// not live, to run the tests against first. The server's errors[] mark the fields, and are listed too.
import { useEffect, useState } from "preact/hooks";
import type { Agent, AgentTool, AgentUpdate, ExtractionField, KnowledgeBase, Provider, Tool, TurnTakingSettings } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { sameJson } from "../../lib/same-json.ts";
import { Field, SelectField, TextAreaField } from "../../ui/field.tsx";
import { Link } from "../../ui/link.tsx";
import { Loading, ProblemNotice, Success } from "../../ui/status.tsx";
import { allProviders } from "./create-agent.tsx";
import { DEFAULT_FLOW, FlowEditor, type Flow } from "./flow-editor.tsx";
import { Check, errorUnder, jsonObject, ListField, NumberField, type Errors } from "./form-kit.tsx";
import { TestFunction } from "./test-function.tsx";
import { TranscriberSettings, VoiceSettings } from "./voice-settings.tsx";
import { TurnTakingSection } from "./turn-taking-settings.tsx";
import { DangerButton } from "../../ui/actions.tsx";
import { testsPath } from "./tests/paths.ts";

// turn_taking as the agent comes back: every setting filled.
type Config = Required<Omit<AgentUpdate, "webhook_url" | "webhook_events" | "metadata" | "turn_taking">> & { turn_taking: TurnTakingSettings };

const BUILTIN_TOOLS: { type: Exclude<AgentTool["type"], "function">; label: string }[] = [
  { type: "end_call", label: "End the call" },
  { type: "transfer_call", label: "Transfer the call (needs a transfer number)" },
  { type: "knowledge_search", label: "Search the knowledge bases" },
  { type: "send_dtmf", label: "Press phone keys (DTMF)" },
];

const metadataText = (agent: Agent) => JSON.stringify(agent.metadata, null, 2);

function configOf(agent: Agent): Config {
  const { id: _id, object: _object, version: _version, created_at: _c, updated_at: _u, webhook_url: _w, webhook_events: _e, metadata: _m, ...config } = agent;
  return config;
}

async function lookups(): Promise<{ providers: Provider[]; tools: Tool[]; knowledgeBases: KnowledgeBase[] }> {
  const tools: Tool[] = [];
  const knowledgeBases: KnowledgeBase[] = [];
  const [providers] = await Promise.all([
    allProviders(),
    (async () => {
      for await (const tool of session.client.tools.list({ limit: 100 })) tools.push(tool);
    })(),
    (async () => {
      for await (const kb of session.client.knowledgeBases.list({ limit: 100 })) knowledgeBases.push(kb);
    })(),
  ]);
  return { providers, tools, knowledgeBases };
}

export function AgentSettings({ agent, onSaved }: { agent: Agent; onSaved: (agent: Agent) => void }) {
  const [draft, setDraft] = useState<Config>(() => configOf(agent));
  // The flow is kept while the brain is switched to a model and back.
  const [flow, setFlow] = useState<Flow>(agent.brain.type === "flow" ? agent.brain.flow : DEFAULT_FLOW);
  const [saved, setSaved] = useState(false);
  // The draft version the form was last saved as (the live agent unchanged).
  const [drafted, setDrafted] = useState<number | null>(null);
  // The metadata as typed: it is sent only when it reads as a JSON object.
  const [metadata, setMetadata] = useState(() => metadataText(agent));
  const [badMetadata, setBadMetadata] = useState(false);
  const [refs, reloadRefs] = useLoad(lookups, []);
  const action = useAction();
  useEffect(() => {
    setDraft(configOf(agent));
    setMetadata(metadataText(agent));
    if (agent.brain.type === "flow") setFlow(agent.brain.flow);
  }, [agent.version]);
  const set = (part: Partial<Config>) => {
    setSaved(false);
    setDrafted(null);
    setDraft((before) => ({ ...before, ...part }));
  };
  const errors: Errors = action.problem?.fields ?? {};
  const providers = refs.status === "ready" ? refs.data.providers : [];
  const tools = refs.status === "ready" ? refs.data.tools : [];
  const knowledgeBases = refs.status === "ready" ? refs.data.knowledgeBases : [];
  const brain = draft.brain;
  // The save bar shows only once something differs from the saved agent (metadata as the JSON it reads as).
  const changed = !sameJson(draft, configOf(agent)) || !sameJson(jsonObject(metadata.trim() || "{}"), agent.metadata);

  /** The metadata as a JSON object, or null (its field marked and focused). */
  const checkedMetadata = () => {
    setSaved(false);
    setDrafted(null);
    const parsed = jsonObject(metadata.trim() || "{}");
    setBadMetadata(!parsed);
    if (!parsed) requestAnimationFrame(() => (document.querySelector('textarea[name="metadata"]') as HTMLElement | null)?.focus());
    return parsed;
  };
  const save = async (event: Event) => {
    event.preventDefault();
    const parsed = checkedMetadata();
    if (parsed && (await action.run(async () => onSaved(await session.client.agents.update(agent.id, { ...draft, metadata: parsed }))))) setSaved(true);
  };
  const saveDraft = async () => {
    const parsed = checkedMetadata();
    if (parsed) await action.run(async () => setDrafted((await session.client.agents.createVersion(agent.id, { ...draft, metadata: parsed })).version));
  };
  const setBrainType = (type: string) => {
    if (type === brain.type) return;
    if (type === "flow") return set({ brain: { type: "flow", flow } });
    const llm = providers.find((p) => p.kind === "openai-compatible" && p.capabilities.includes("llm"));
    set({ brain: { type: "llm", provider_id: llm?.id ?? "", model: String(llm?.settings.chat_model ?? ""), temperature: 0.7, max_tokens: 400 } });
  };
  const hasTool = (type: string, toolId?: string) => draft.tools.some((t) => t.type === type && (!toolId || ("tool_id" in t && t.tool_id === toolId)));
  const toggleTool = (tool: AgentTool, on: boolean) =>
    set({ tools: on ? [...draft.tools, tool] : draft.tools.filter((t) => !(t.type === tool.type && (!("tool_id" in tool) || ("tool_id" in t && t.tool_id === tool.tool_id)))) });
  const setExtraction = (i: number, part: Partial<ExtractionField>) => set({ extraction: draft.extraction.map((f, j) => (j === i ? { ...f, ...part } : f)) });
  const llmOptions = [{ value: "", label: "— choose a connection —" }, ...providers.filter((p) => p.kind === "openai-compatible").map((p) => ({ value: p.id, label: p.name }))];

  return (
    <form class="agents-settings" onSubmit={save} noValidate aria-label="Agent settings">
      <ProblemNotice problem={action.problem} />
      {action.problem && Object.keys(errors).length > 0 && (
        <ul class="agents-errors" aria-label="Problems the server found">
          {Object.entries(errors).map(([field, message]) => (
            <li key={field}>
              <code>{field}</code>: {message}
            </li>
          ))}
        </ul>
      )}
      {refs.status === "failed" && <ProblemNotice problem={refs.problem} onRetry={reloadRefs} />}

      <fieldset class="agents-section">
        <legend>Conversation</legend>
        <div class="agents-grid">
          <Field label="Name" name="name" value={draft.name} error={errors.name} onInput={(e) => set({ name: e.currentTarget.value })} />
          <Field label="Language" name="language" hint="BCP 47, e.g. en-US" value={draft.language} error={errors.language} onInput={(e) => set({ language: e.currentTarget.value })} />
        </div>
        <SelectField
          label="Who speaks first"
          name="first_message_mode"
          value={draft.first_message_mode}
          error={errors.first_message_mode}
          onChange={(mode) => set({ first_message_mode: mode as Config["first_message_mode"] })}
          options={[
            { value: "agent_first", label: "The agent greets the caller" },
            { value: "caller_first", label: "The agent waits for the caller" },
          ]}
        />
        <TextAreaField label="First message" name="first_message" rows={2} hint="The greeting; {{variables}} allowed." value={draft.first_message ?? ""} error={errors.first_message} onInput={(e) => set({ first_message: e.currentTarget.value || null })} />
        <TextAreaField label="Prompt" name="system_prompt" rows={6} hint="Instructions for a language-model brain; {{variables}} are filled from the call or contact." value={draft.system_prompt} error={errors.system_prompt} onInput={(e) => set({ system_prompt: e.currentTarget.value })} />
      </fieldset>

      <fieldset class="agents-section">
        <legend>Brain</legend>
        <SelectField
          label="Brain"
          name="brain.type"
          value={brain.type}
          error={errors.brain}
          onChange={setBrainType}
          options={[
            { value: "flow", label: "Flow: deterministic steps, no model needed" },
            { value: "llm", label: "Language model with tools" },
          ]}
        />
        {brain.type === "llm" && (
          <>
            <SelectField label="Model provider" name="brain.provider_id" value={brain.provider_id} error={errors["brain.provider_id"]} onChange={(provider_id) => set({ brain: { ...brain, provider_id } })} options={llmOptions} hint="An OpenAI-compatible connection (Providers)." />
            <div class="agents-grid">
              <Field label="Model" name="brain.model" value={brain.model} error={errors["brain.model"]} onInput={(e) => set({ brain: { ...brain, model: e.currentTarget.value } })} />
              <NumberField label="Temperature" name="brain.temperature" min={0} max={2} step={0.1} value={brain.temperature} errors={errors} onChange={(temperature) => set({ brain: { ...brain, temperature } })} />
              <NumberField label="Max tokens" name="brain.max_tokens" min={1} max={32000} value={brain.max_tokens} errors={errors} onChange={(max_tokens) => set({ brain: { ...brain, max_tokens } })} />
            </div>
            <Field label="Fallback message (optional)" name="brain.fallback_message" hint="Said when the model fails mid-call." value={brain.fallback_message ?? ""} error={errors["brain.fallback_message"]} onInput={(e) => set({ brain: { ...brain, fallback_message: e.currentTarget.value || undefined } })} />
          </>
        )}
        {brain.type === "flow" && (
          <FlowEditor
            flow={brain.flow}
            tools={tools}
            knowledgeBases={knowledgeBases}
            errors={errors}
            onChange={(next) => {
              setFlow(next);
              set({ brain: { type: "flow", flow: next } });
            }}
          />
        )}
      </fieldset>

      <VoiceSettings voice={draft.voice} onChange={(voice) => set({ voice })} errors={errors} providers={providers} previewText={draft.first_message ?? ""} />
      <TranscriberSettings transcriber={draft.transcriber} onChange={(transcriber) => set({ transcriber })} errors={errors} providers={providers} />

      <TurnTakingSection turnTaking={draft.turn_taking} onChange={(turn_taking) => set({ turn_taking })} errors={errors} />

      <fieldset class="agents-section">
        <legend>Voicemail and transfers</legend>
        <SelectField
          label="When a machine answers an outbound call"
          name="voicemail.action"
          value={draft.voicemail.action}
          error={errors["voicemail.action"]}
          onChange={(action) => set({ voicemail: { ...draft.voicemail, action: action as Config["voicemail"]["action"] } })}
          options={[
            { value: "hang_up", label: "Hang up" },
            { value: "leave_message", label: "Leave a message" },
          ]}
        />
        {draft.voicemail.action === "leave_message" && (
          <TextAreaField label="Voicemail message" name="voicemail.message" rows={2} value={draft.voicemail.message ?? ""} error={errors["voicemail.message"]} onInput={(e) => set({ voicemail: { ...draft.voicemail, message: e.currentTarget.value || null } })} />
        )}
        <Field label="Transfer number" name="transfer_number" hint="E.164 (+14155550123) or a SIP URI; empty for none." value={draft.transfer_number ?? ""} error={errors.transfer_number} onInput={(e) => set({ transfer_number: e.currentTarget.value.trim() || null })} />
      </fieldset>

      <fieldset class="agents-section agents-checks">
        <legend>Tools</legend>
        {BUILTIN_TOOLS.map((tool) => (
          <Check key={tool.type} name={`tools.${tool.type}`} checked={hasTool(tool.type)} onChange={(on) => toggleTool({ type: tool.type }, on)}>
            {tool.label}
          </Check>
        ))}
        {tools.map((tool) => (
          <Check key={tool.id} name={`tools.${tool.id}`} checked={hasTool("function", tool.id)} onChange={(on) => toggleTool({ type: "function", tool_id: tool.id }, on)}>
            Function <code>{tool.name}</code>: {tool.description}
          </Check>
        ))}
        {refs.status === "loading" && <Loading label="Loading tools…" />}
        {refs.status === "ready" && tools.length === 0 && <p class="hint">No functions yet: add tools (webhooks the agent can call) under Tools.</p>}
        {errorUnder(errors, "tools") && <p class="field-error">{errorUnder(errors, "tools")}</p>}
        {refs.status === "ready" && tools.length > 0 && <TestFunction agent={agent} tools={tools} />}
      </fieldset>

      <fieldset class="agents-section agents-checks">
        <legend>Knowledge bases</legend>
        {knowledgeBases.map((kb) => (
          <Check key={kb.id} name={`knowledge_base_ids.${kb.id}`} checked={draft.knowledge_base_ids.includes(kb.id)} onChange={(on) => set({ knowledge_base_ids: on ? [...draft.knowledge_base_ids, kb.id] : draft.knowledge_base_ids.filter((id) => id !== kb.id) })}>
            {kb.name}
          </Check>
        ))}
        {refs.status === "ready" && knowledgeBases.length === 0 && <p class="hint">No knowledge bases yet.</p>}
        {errorUnder(errors, "knowledge_base_ids") && <p class="field-error">{errorUnder(errors, "knowledge_base_ids")}</p>}
      </fieldset>

      <fieldset class="agents-section">
        <legend>Extraction after the call</legend>
        <p class="hint">Fields filled from the conversation into <code>extracted</code> of the call.</p>
        {draft.extraction.map((field, i) => (
          <div class="agents-subrow" key={i}>
            <Field label={`Field ${i + 1}: name`} name={`extraction[${i}].name`} value={field.name} error={errors[`extraction[${i}].name`]} onInput={(e) => setExtraction(i, { name: e.currentTarget.value })} />
            <SelectField label="Type" name={`extraction[${i}].type`} value={field.type} onChange={(type) => setExtraction(i, { type: type as ExtractionField["type"] })} options={["string", "number", "boolean", "enum"].map((value) => ({ value, label: value }))} />
            <Field label="Description" name={`extraction[${i}].description`} value={field.description} error={errors[`extraction[${i}].description`]} onInput={(e) => setExtraction(i, { description: e.currentTarget.value })} />
            {field.type === "enum" && <ListField label="Options" name={`extraction[${i}].options`} hint="Comma-separated" value={field.options ?? []} errors={errors} onChange={(options) => setExtraction(i, { options: options.length ? options : undefined })} />}
            <DangerButton label={`Remove field ${i + 1}`} onClick={() => set({ extraction: draft.extraction.filter((_, j) => j !== i) })}>Remove</DangerButton>
          </div>
        ))}
        <button type="button" class="button secondary agents-inline" onClick={() => set({ extraction: [...draft.extraction, { name: "", type: "string", description: "" }] })}>
          Add field
        </button>
      </fieldset>

      <fieldset class="agents-section">
        <legend>Metadata</legend>
        <TextAreaField
          label="Metadata (JSON object)"
          name="metadata"
          rows={4}
          hint="Your own data, returned as given with the agent."
          value={metadata}
          error={badMetadata ? "Write a JSON object, e.g. {\"team\": \"sales\"}." : errorUnder(errors, "metadata")}
          onInput={(e) => (setSaved(false), setDrafted(null), setBadMetadata(false), setMetadata(e.currentTarget.value))}
        />
      </fieldset>

      {(changed || saved || action.busy) && (
        <div class="agents-savebar">
          {saved && !changed && <Success>Saved as version {agent.version}.</Success>}
          {drafted !== null && (
            <Success>
              Saved as draft version {drafted}: calls keep version {agent.version} until you publish it (Versions).{" "}
              <Link href={testsPath(agent.id, { against: String(drafted) })}>Run the tests against it</Link>
            </Success>
          )}
          {(changed || action.busy) && (
            <>
              {drafted === null && <span class="agents-unsaved">Unsaved changes</span>}
              <button type="button" class="button secondary" disabled={action.busy} onClick={() => (setDraft(configOf(agent)), setMetadata(metadataText(agent)), setBadMetadata(false), action.reset(), setSaved(false), setDrafted(null))}>
                Discard changes
              </button>
              <button type="button" class="button secondary" disabled={action.busy} onClick={saveDraft}>
                Save as draft
              </button>
              <button type="submit" class="button primary" disabled={action.busy}>
                {action.busy ? "Saving…" : "Save"}
              </button>
            </>
          )}
        </div>
      )}
    </form>
  );
}
