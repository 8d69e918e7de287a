// One knowledge base: its sources with their indexing progress (reloaded every 2 s while any is pending or
// indexing), adding a source (text, web page or file), re-indexing or deleting one after confirming,
// deleting the base, and a search box that shows what an agent would find, with scores.
import { useState } from "preact/hooks";
import type { KnowledgeBase as Base, KnowledgeSource } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { navigate } from "../../lib/router.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useInterval } from "../../lib/use-interval.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { Link } from "../../ui/link.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, Loading, ProblemNotice } from "../../ui/status.tsx";
import { AddSource } from "./add-source.tsx";
import { useDeleteBase } from "./knowledge-bases.tsx";
import { SearchBase } from "./search-base.tsx";
import { DangerButton, OpenButton } from "../../ui/actions.tsx";

async function loadBase(id: string): Promise<{ base: Base; sources: KnowledgeSource[] }> {
  const sources: KnowledgeSource[] = [];
  const [base] = await Promise.all([
    session.client.knowledgeBases.get(id),
    (async () => {
      for await (const source of session.client.knowledgeBases.listSources(id, { limit: 100 })) sources.push(source);
    })(),
  ]);
  return { base, sources };
}

const busy = (source: KnowledgeSource) => source.status === "pending" || source.status === "indexing";

export function KnowledgeBase({ id }: { id: string }) {
  const [data, reload] = useLoad(() => loadBase(id), [id]);
  const [adding, setAdding] = useState(false);
  const indexing = data.status === "ready" && data.data.sources.some(busy);
  useInterval(reload, indexing ? 2000 : null);
  const deleting = useDeleteBase();
  const action = useAction();
  const confirm = useConfirm();
  if (data.status === "loading") return <Loading label="Loading the knowledge base…" />;
  if (data.status === "failed")
    return (
      <>
        <PageHeader title="Knowledge base" />
        <ProblemNotice problem={data.problem} onRetry={reload} />
        <Link href={PAGES.knowledgeBases}>Back to knowledge bases</Link>
      </>
    );
  const { base, sources } = data.data;
  const removeSource = async (source: KnowledgeSource) => {
    const ok = await confirm.ask({ title: `Delete “${source.name}”?`, message: "Its passages leave the index at once; agents no longer find them.", action: "Delete source" });
    if (ok && (await action.run(() => session.client.knowledgeBases.deleteSource(base.id, source.id)))) reload();
  };
  const reindex = async (source: KnowledgeSource) => {
    if (await action.run(async () => void (await session.client.knowledgeBases.reindexSource(base.id, source.id)))) reload();
  };
  return (
    <>
      <Link href={PAGES.knowledgeBases} class="knowledge-back">← All knowledge bases</Link>
      <PageHeader title={base.name} description={base.description ?? `${base.counts.sources} sources · ${base.counts.chunks} passages`}>
        <OpenButton open={adding} onOpen={() => setAdding(true)}>
          Add source
        </OpenButton>
        <DangerButton disabled={deleting.action.busy} onClick={async () => (await deleting.remove(base)) && navigate(PAGES.knowledgeBases)}>Delete</DangerButton>
      </PageHeader>
      <ProblemNotice problem={deleting.action.problem ?? action.problem} />
      {adding && (
        <AddSource
          baseId={base.id}
          onCancel={() => setAdding(false)}
          onAdded={() => {
            setAdding(false);
            reload();
          }}
        />
      )}
      <section aria-labelledby="knowledge-sources">
        <h2 id="knowledge-sources">Sources</h2>
        {sources.length === 0 ? (
          <Empty title="No sources yet">
            <p>Add a document, a web page or some text: it is indexed in the background.</p>
          </Empty>
        ) : (
          <DataTable caption="Sources" columns={["Name", "Type", "Status", "Passages", "Indexed", null]}>
            {sources.map((source) => (
              <tr key={source.id}>
                <th scope="row">
                  {source.name}
                  {source.url && <span class="muted small knowledge-description">{source.url}</span>}
                </th>
                <td>{source.type}</td>
                <td><SourceStatus source={source} /></td>
                <td>{source.progress.chunks_total || "—"}</td>
                <td>{formatDate(source.indexed_at, "Not yet")}</td>
                <td class="row-actions">
                  <button type="button" class="button ghost" disabled={action.busy || busy(source)} aria-label={`Re-index ${source.name}`} onClick={() => reindex(source)}>
                    Re-index
                  </button>
                  <DangerButton label={`Delete ${source.name}`} disabled={action.busy} onClick={() => removeSource(source)}>Delete</DangerButton>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
      <SearchBase base={base} />
      {deleting.dialog}
      {confirm.dialog}
    </>
  );
}

function SourceStatus({ source }: { source: KnowledgeSource }) {
  const { chunks_done: done, chunks_total: total } = source.progress;
  if (source.status === "failed") return <span class="status-bad" title={source.error ?? undefined}>Failed{source.error ? `: ${source.error}` : ""}</span>;
  if (source.status === "ready") return <span class="knowledge-ready">Ready</span>;
  return (
    <span class="knowledge-progress">
      {source.status === "pending" ? "Waiting" : total ? `Indexing ${done} of ${total}` : "Indexing"}
      <progress max={total || 1} value={total ? done : undefined} aria-label={`Indexing progress of ${source.name}`} />
    </span>
  );
}
