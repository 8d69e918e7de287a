// Widgets: a chat box or call button for a website, answered by an agent. Create and edit (agent, name,
// allowed origins, look), copy the embed snippet, see the preview page in a frame (or open it), delete after confirming.
import { useState } from "preact/hooks";
import type { Agent, Widget } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { CopyButton } from "../../ui/copy-button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, LoadState, ProblemNotice } from "../../ui/status.tsx";
import { MODES, WidgetForm } from "./widget-form.tsx";
import { DangerButton } from "../../ui/actions.tsx";

async function loadWidgets(): Promise<{ widgets: Widget[]; agents: Agent[] }> {
  const widgets: Widget[] = [];
  const agents: Agent[] = [];
  await Promise.all([
    (async () => {
      for await (const widget of session.client.widgets.list({ limit: 100 })) widgets.push(widget);
    })(),
    (async () => {
      for await (const agent of session.client.agents.list({ limit: 100 })) agents.push(agent);
    })(),
  ]);
  return { widgets, agents };
}

export function Widgets() {
  const [state, reload] = useLoad(loadWidgets, []);
  const [editing, setEditing] = useState<Widget | "new" | null>(null);
  const [embed, setEmbed] = useState<Widget | null>(null);
  const deleting = useAction();
  const confirm = useConfirm();
  const remove = async (widget: Widget) => {
    const ok = await confirm.ask({ title: `Delete “${widget.name}”?`, message: "Pages that embed it stop showing it at once. This cannot be undone.", action: "Delete widget" });
    if (!ok || !(await deleting.run(() => session.client.widgets.delete(widget.id)))) return;
    if (embed?.id === widget.id) setEmbed(null);
    reload();
  };
  const agents = state.status === "ready" ? state.data.agents : [];
  const agentName = (id: string) => agents.find((a) => a.id === id)?.name ?? id;
  return (
    <>
      <PageHeader title="Widgets" description="A chat box or call button on your website, answered by one of your agents.">
        {!editing && state.status === "ready" && agents.length > 0 && (
          <button type="button" class="button primary" onClick={() => (setEditing("new"), setEmbed(null))}>
            New widget
          </button>
        )}
      </PageHeader>
      {editing && (
        <WidgetForm
          key={editing === "new" ? "new" : editing.id}
          widget={editing === "new" ? null : editing}
          agents={agents}
          onCancel={() => setEditing(null)}
          onSaved={(widget) => {
            setEditing(null);
            setEmbed(widget);
            reload();
          }}
        />
      )}
      {embed && <EmbedPanel widget={embed} onClose={() => setEmbed(null)} />}
      <ProblemNotice problem={deleting.problem} />
      <LoadState state={state} label="Loading widgets…" onRetry={reload} />
      {state.status === "ready" && agents.length === 0 && state.data.widgets.length === 0 && (
        <Empty title="No agents yet">
          <p>A widget is answered by an agent: create an agent first.</p>
        </Empty>
      )}
      {state.status === "ready" && agents.length > 0 && state.data.widgets.length === 0 && (
        <Empty title="No widgets yet">
          <p>Create one, then paste its snippet into your website.</p>
        </Empty>
      )}
      {state.status === "ready" && state.data.widgets.length > 0 && (
        <DataTable caption="Widgets" columns={["Name", "Agent", "Mode", "Allowed origins", "Updated", null]}>
          {state.data.widgets.map((widget) => (
            <tr key={widget.id}>
              <th scope="row">{widget.name}</th>
              <td>{agentName(widget.agent_id)}</td>
              <td>{MODES.find((m) => m.value === widget.mode)?.label}</td>
              <td>{widget.allowed_origins.length ? widget.allowed_origins.join(", ") : <span class="muted">Only the preview</span>}</td>
              <td>{formatDate(widget.updated_at)}</td>
              <td class="row-actions">
                <button type="button" class="button ghost" aria-label={`Embed ${widget.name}`} onClick={() => (setEmbed(widget), setEditing(null))}>
                  Embed
                </button>
                <button type="button" class="button ghost" aria-label={`Edit ${widget.name}`} onClick={() => (setEditing(widget), setEmbed(null))}>
                  Edit
                </button>
                <DangerButton label={`Delete ${widget.name}`} disabled={deleting.busy} onClick={() => remove(widget)}>Delete</DangerButton>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {confirm.dialog}
    </>
  );
}

/**
 * The preview page inside this one. The dashboard's CSP frames only its own origin (and the preview
 * allows only it as an ancestor), so where the API's public URL is another origin the link alone is offered.
 */
function PreviewFrame({ widget }: { widget: Widget }) {
  if (new URL(widget.embed.preview_url, location.href).origin !== location.origin) return null;
  return <iframe class="widgets-preview" title={`Preview of ${widget.name}`} src={widget.embed.preview_url} />;
}

/** The snippet to paste into a website, and the page that shows the widget on its own. */
function EmbedPanel({ widget, onClose }: { widget: Widget; onClose: () => void }) {
  return (
    <section class="panel highlight" aria-labelledby="embed-title">
      <h2 id="embed-title">Embed “{widget.name}”</h2>
      <p>Paste this before &lt;/body&gt; on each page of an allowed origin. Pages with a Content-Security-Policy must allow this server in script-src and connect-src.</p>
      <label for="widget-snippet" class="visually-hidden">
        Embed snippet of {widget.name}
      </label>
      <textarea id="widget-snippet" class="secret widgets-snippet" readOnly rows={2} value={widget.embed.snippet} onFocus={(e) => e.currentTarget.select()} />
      <PreviewFrame widget={widget} />
      <div class="actions">
        <a class="button secondary" href={widget.embed.preview_url} target="_blank" rel="noopener noreferrer">
          Open preview<span class="visually-hidden"> (opens a new tab)</span>
        </a>
        <CopyButton text={widget.embed.snippet} label="Copy snippet" />
        <button type="button" class="button primary" onClick={onClose}>
          Done
        </button>
      </div>
    </section>
  );
}
