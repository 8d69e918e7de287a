// A widget's settings: the agent that answers, its name, the pages allowed to embed it, and its look.
import { useState } from "preact/hooks";
import type { Agent, Widget, WidgetCreate } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field, SelectField, TextAreaField } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
export const MODES = [
  { value: "chat", label: "Chat" },
  { value: "voice", label: "Voice call" },
  { value: "both", label: "Chat and voice" },
];
const POSITIONS = [
  { value: "bottom-right", label: "Bottom right" },
  { value: "bottom-left", label: "Bottom left" },
];

export function WidgetForm({ widget, agents, onSaved, onCancel }: { widget: Widget | null; agents: Agent[]; onSaved: (widget: Widget) => void; onCancel: () => void }) {
  const [agentId, setAgentId] = useState(widget?.agent_id ?? agents[0]?.id ?? "");
  const [name, setName] = useState(widget?.name ?? "");
  const [origins, setOrigins] = useState(widget?.allowed_origins.join("\n") ?? "");
  const [mode, setMode] = useState<WidgetCreate["mode"]>(widget?.mode ?? "chat");
  const [title, setTitle] = useState(widget?.look.title ?? "");
  const [greeting, setGreeting] = useState(widget?.look.greeting ?? "");
  const [primary, setPrimary] = useState(widget?.look.primary_color ?? "#1a56db");
  const [background, setBackground] = useState(widget?.look.background_color ?? "#ffffff");
  const [text, setText] = useState(widget?.look.text_color ?? "#16181d");
  const [position, setPosition] = useState(widget?.look.position ?? "bottom-right");
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const body = {
      agent_id: agentId,
      name,
      allowed_origins: origins.split(/[\s,]+/).filter(Boolean),
      mode,
      look: { ...(title.trim() ? { title: title.trim() } : {}), greeting: greeting.trim() || null, primary_color: primary, background_color: background, text_color: text, position },
    };
    await action.run(async () => onSaved(widget ? await session.client.widgets.update(widget.id, body) : await session.client.widgets.create(body)));
  };
  const fields = action.problem?.fields ?? {};
  // The server names one bad origin by its index (allowed_origins.1): the whole list is one field here.
  const originError = Object.entries(fields).find(([field]) => field.startsWith("allowed_origins"))?.[1];
  return (
    <form class="panel widgets-form" onSubmit={submit} noValidate aria-labelledby="widget-form-title">
      <h2 id="widget-form-title">{widget ? `Edit “${widget.name}”` : "New widget"}</h2>
      <ProblemNotice problem={action.problem} />
      <Field label="Name" name="name" required autoFocus value={name} error={fields.name} onInput={(e) => setName(e.currentTarget.value)} />
      <SelectField label="Agent" name="agent_id" value={agentId} onChange={setAgentId} options={agents.map((a) => ({ value: a.id, label: a.name }))} error={fields.agent_id} />
      <SelectField label="Mode" name="mode" value={mode ?? "chat"} onChange={(value) => setMode(value as WidgetCreate["mode"])} options={MODES} error={fields.mode} />
      <TextAreaField
        label="Allowed origins"
        name="allowed_origins"
        rows={3}
        hint="One per line: https://shop.example.com, or https://*.example.com for its subdomains. The preview page always works."
        value={origins}
        error={originError}
        onInput={(e) => setOrigins(e.currentTarget.value)}
      />
      <fieldset class="widgets-look">
        <legend>Look</legend>
        <Field label="Title" name="look.title" hint="The panel's header; the widget's name when empty." value={title} error={fields["look.title"]} onInput={(e) => setTitle(e.currentTarget.value)} />
        <Field label="Greeting" name="look.greeting" hint="The chat's first bubble, before the visitor says anything (the agent's first message is a call's greeting: the chat does not say it)." value={greeting} error={fields["look.greeting"]} onInput={(e) => setGreeting(e.currentTarget.value)} />
        <div class="widgets-colors">
          <Field label="Main colour" name="look.primary_color" type="color" value={primary} error={fields["look.primary_color"]} onInput={(e) => setPrimary(e.currentTarget.value)} />
          <Field label="Background" name="look.background_color" type="color" value={background} error={fields["look.background_color"]} onInput={(e) => setBackground(e.currentTarget.value)} />
          <Field label="Text" name="look.text_color" type="color" value={text} error={fields["look.text_color"]} onInput={(e) => setText(e.currentTarget.value)} />
        </div>
        <SelectField label="Position" name="look.position" value={position} onChange={(value) => setPosition(value as "bottom-right")} options={POSITIONS} error={fields["look.position"]} />
      </fieldset>
      <FormActions submit={widget ? "Save widget" : "Create widget"} busy={action.busy} busyLabel="Saving…" onCancel={onCancel} />
    </form>
  );
}
