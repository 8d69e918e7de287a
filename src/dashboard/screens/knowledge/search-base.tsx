// Search a knowledge base as an agent would: the passages found, best first, each with its similarity
// score, where it comes from, and whether the words or the meaning matched.
import { useState } from "preact/hooks";
import type { KnowledgeBase, KnowledgeQueryResult } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field } from "../../ui/field.tsx";
import { ProblemNotice } from "../../ui/status.tsx";

export function SearchBase({ base }: { base: KnowledgeBase }) {
  const [query, setQuery] = useState("");
  const [results, setResults] = useState<{ query: string; found: KnowledgeQueryResult["data"] } | null>(null);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => setResults({ query, found: (await session.client.knowledgeBases.query(base.id, { query, top_k: 5 })).data }));
  };
  return (
    <section class="knowledge-search" aria-labelledby="knowledge-search-title">
      <h2 id="knowledge-search-title">Try a search</h2>
      <form class="knowledge-search-form" role="search" onSubmit={submit} noValidate>
        <Field label="Question" name="query" hint="What a caller might ask; the five best passages are shown." value={query} error={action.problem?.fields.query} onInput={(e) => setQuery(e.currentTarget.value)} />
        <button type="submit" class="button primary" disabled={action.busy}>
          {action.busy ? "Searching…" : "Search"}
        </button>
      </form>
      <ProblemNotice problem={action.problem} />
      <div aria-live="polite">
        {results && results.found.length === 0 && <p class="muted">Nothing found for “{results.query}”.</p>}
        {results && results.found.length > 0 && (
          <ol class="knowledge-results" aria-label={`Results for “${results.query}”`}>
            {results.found.map((hit) => (
              <li key={hit.chunk_id} class="knowledge-result">
                <div class="knowledge-result-head">
                  <span class="knowledge-score">
                    Score {hit.score.toFixed(2)}
                    <meter min={0} max={1} value={hit.score} aria-label={`Score of the passage from ${hit.source_name}`} />
                  </span>
                  <span class="muted small">
                    {hit.source_name}
                    {hit.heading ? ` · ${hit.heading}` : ""} · passage {hit.position + 1} · matched by {hit.matched_by.join(" and ")}
                  </span>
                </div>
                <p>{hit.text}</p>
              </li>
            ))}
          </ol>
        )}
      </div>
    </section>
  );
}
