// Knowledge bases: the list (sources, chunks, what is still indexing), a new base from a name, and
// deleting one with all its sources after confirming. Agents search them during calls.
import { useState } from "preact/hooks";
import type { KnowledgeBase } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { navigate } from "../../lib/router.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { Field } from "../../ui/field.tsx";
import { Link } from "../../ui/link.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, LoadState, ProblemNotice } from "../../ui/status.tsx";
import { DangerButton, OpenButton } from "../../ui/actions.tsx";
import { FormActions } from "../../ui/form-actions.tsx";

export const knowledgeBasePath = (id: string) => PAGES.knowledgeBase.replace(":id", encodeURIComponent(id));

async function allBases(): Promise<KnowledgeBase[]> {
  const bases: KnowledgeBase[] = [];
  for await (const base of session.client.knowledgeBases.list({ limit: 100 })) bases.push(base);
  return bases;
}

/** Asks, then deletes a base; answers whether it is gone. */
export function useDeleteBase() {
  const action = useAction();
  const confirm = useConfirm();
  const remove = async (base: KnowledgeBase) => {
    const ok = await confirm.ask({
      title: `Delete “${base.name}”?`,
      message: `Its ${base.counts.sources} source${base.counts.sources === 1 ? "" : "s"} and their index are deleted for good. Agents using it must be changed first.`,
      action: "Delete knowledge base",
    });
    return ok && (await action.run(() => session.client.knowledgeBases.delete(base.id)));
  };
  return { remove, action, dialog: confirm.dialog };
}

export function KnowledgeBases() {
  const [bases, reload] = useLoad(allBases, []);
  const [creating, setCreating] = useState(false);
  const deleting = useDeleteBase();
  return (
    <>
      <PageHeader title="Knowledge bases" description="Documents, web pages and notes your agents search while they talk. Each source is split into passages and indexed.">
        <OpenButton open={creating} onOpen={() => setCreating(true)}>
          New knowledge base
        </OpenButton>
      </PageHeader>
      {creating && <CreateBase onCancel={() => setCreating(false)} onCreated={(base) => navigate(knowledgeBasePath(base.id))} />}
      <ProblemNotice problem={deleting.action.problem} />
      <LoadState state={bases} label="Loading knowledge bases…" onRetry={reload} />
      {bases.status === "ready" && bases.data.length === 0 && (
        <Empty title="No knowledge bases yet">
          <p>Create one, add your documents to it, then give it to an agent.</p>
        </Empty>
      )}
      {bases.status === "ready" && bases.data.length > 0 && (
        <DataTable caption="Knowledge bases" columns={["Name", "Sources", "Passages", "Indexing", "Created", null]}>
          {bases.data.map((base) => (
            <tr key={base.id}>
              <th scope="row">
                <Link href={knowledgeBasePath(base.id)}>{base.name}</Link>
                {base.description && <span class="muted small knowledge-description">{base.description}</span>}
              </th>
              <td>{base.counts.sources}</td>
              <td>{base.counts.chunks}</td>
              <td>{base.counts.pending + base.counts.indexing ? `${base.counts.pending + base.counts.indexing} in progress` : base.counts.failed ? <span class="status-bad">{base.counts.failed} failed</span> : "Up to date"}</td>
              <td>{formatDate(base.created_at)}</td>
              <td class="row-actions">
                <DangerButton label={`Delete ${base.name}`} disabled={deleting.action.busy} onClick={async () => (await deleting.remove(base)) && reload()}>Delete</DangerButton>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {deleting.dialog}
    </>
  );
}

function CreateBase({ onCreated, onCancel }: { onCreated: (base: KnowledgeBase) => void; onCancel: () => void }) {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const action = useAction();
  const fields = action.problem?.fields ?? {};
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => onCreated(await session.client.knowledgeBases.create({ name, ...(description.trim() ? { description } : {}) })));
  };
  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby="knowledge-new-title">
      <h2 id="knowledge-new-title">New knowledge base</h2>
      <ProblemNotice problem={action.problem} />
      <Field label="Name" name="name" required autoFocus value={name} error={fields.name} onInput={(e) => setName(e.currentTarget.value)} />
      <Field label="Description" name="description" hint="Optional: what it holds." value={description} error={fields.description} onInput={(e) => setDescription(e.currentTarget.value)} />
      <FormActions submit="Create" busy={action.busy} busyLabel="Creating…" onCancel={onCancel} />
    </form>
  );
}
