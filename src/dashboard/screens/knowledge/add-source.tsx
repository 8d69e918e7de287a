// A new source for a knowledge base: some text, a web page, or a file (txt, md, html, csv, pdf; up to
// 20 MiB) uploaded through the client library's multipart support. Indexing starts on its own.
import { useId, useState } from "preact/hooks";
import type { KnowledgeSource } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field, TextAreaField } from "../../ui/field.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
import { Tabs } from "../../ui/tabs.tsx";
import { FormActions } from "../../ui/form-actions.tsx";

type Kind = "text" | "url" | "file";
const KINDS = [
  { id: "file", label: "File" },
  { id: "url", label: "Web page" },
  { id: "text", label: "Text" },
];

export function AddSource({ baseId, onAdded, onCancel }: { baseId: string; onAdded: (source: KnowledgeSource) => void; onCancel: () => void }) {
  const [kind, setKind] = useState<Kind>("file");
  const [name, setName] = useState("");
  const [text, setText] = useState("");
  const [url, setUrl] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const fileId = useId();
  const action = useAction();
  const fields = action.problem?.fields ?? {};
  const named = name.trim() ? { name: name.trim() } : {};
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const client = session.client.knowledgeBases;
      if (kind === "file") {
        if (!file) throw new Error("Choose a file to upload.");
        onAdded(await client.addSource(baseId, { file, ...named }));
      } else if (kind === "url") onAdded(await client.addSource(baseId, { type: "url", url, ...named }));
      else onAdded(await client.addSource(baseId, { type: "text", name, text }));
    });
  };
  return (
    <form class="panel knowledge-add" onSubmit={submit} noValidate aria-labelledby="knowledge-add-title">
      <h2 id="knowledge-add-title">Add a source</h2>
      <Tabs label="Kind of source" tabs={KINDS} current={kind} onSelect={(id) => (setKind(id as Kind), action.reset())}>
        <ProblemNotice problem={action.problem} />
        {kind === "file" && (
          <div class={fields.file ? "field invalid" : "field"}>
            <label for={fileId}>File to upload</label>
            <input
              id={fileId}
              name="file"
              type="file"
              accept=".txt,.md,.markdown,.html,.htm,.csv,.pdf,text/plain,text/markdown,text/html,text/csv,application/pdf"
              aria-invalid={fields.file ? "true" : undefined}
              aria-describedby={fields.file ? `${fileId}-hint ${fileId}-error` : `${fileId}-hint`}
              onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
            />
            <p class="hint" id={`${fileId}-hint`}>Text, Markdown, HTML, CSV or PDF, up to 20 MiB.</p>
            {fields.file && <p class="field-error" id={`${fileId}-error`}>{fields.file}</p>}
          </div>
        )}
        {kind === "url" && <Field label="Address" name="url" type="url" placeholder="https://example.com/help" required value={url} error={fields.url} onInput={(e) => setUrl(e.currentTarget.value)} />}
        {kind === "text" && <TextAreaField label="Text" name="text" rows={6} required value={text} error={fields.text} onInput={(e) => setText(e.currentTarget.value)} />}
        <Field label="Name" name="name" required={kind === "text"} hint={kind === "text" ? "How the source is listed." : "Optional: the file's name or the page's address by default."} value={name} error={fields.name} onInput={(e) => setName(e.currentTarget.value)} />
      </Tabs>
      <FormActions submit="Add source" busy={action.busy} busyLabel="Adding…" onCancel={onCancel} />
    </form>
  );
}
