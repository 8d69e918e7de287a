// A list read a page at a time, newest first, with "load more" (delivery attempts and events grow fast).
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { Page } from "../../sdk/ts/src/index.ts";
import { problemOf, type Problem } from "../lib/problem.ts";
import { session } from "../lib/session.ts";
import { useLoad, type Loaded } from "../lib/use-load.ts";
import { Loading, ProblemNotice } from "./status.tsx";

export interface Pages<T> {
  first: Loaded<T[]>;
  items: T[];
  next: string | null;
  loadingMore: boolean;
  moreProblem: Problem | null;
  loadMore(): void;
  reload(): void;
}

export function usePages<T>(fetchPage: (cursor?: string) => PromiseLike<Page<T>>, deps: unknown[]): Pages<T> {
  const [more, setMore] = useState<{ items: T[]; next: string | null }>({ items: [], next: null });
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreProblem, setMoreProblem] = useState<Problem | null>(null);
  const [first, reload] = useLoad(async () => {
    const page = await fetchPage();
    setMore({ items: [], next: page.next_cursor });
    return page.data;
  }, deps);
  const loadMore = async () => {
    setLoadingMore(true);
    setMoreProblem(null);
    try {
      const page = await fetchPage(more.next!);
      setMore({ items: [...more.items, ...page.data], next: page.next_cursor });
    } catch (error) {
      session.check(error);
      setMoreProblem(problemOf(error));
    } finally {
      setLoadingMore(false);
    }
  };
  const items = first.status === "ready" ? [...first.data, ...more.items] : [];
  return { first, items, next: more.next, loadingMore, moreProblem, loadMore: () => void loadMore(), reload };
}

/** A paged list's states: loading, failed, empty, or its table (drawn by `children`) and "Load more". */
export function PagedList<T>({ pages, what, empty, children }: { pages: Pages<T>; what: string; empty: ComponentChildren; children: (items: T[]) => ComponentChildren }) {
  const { first } = pages;
  if (first.status === "loading") return <Loading label={`Loading ${what}…`} />;
  if (first.status === "failed") return <ProblemNotice problem={first.problem} onRetry={pages.reload} />;
  if (pages.items.length === 0) return <>{empty}</>;
  return (
    <>
      {children(pages.items)}
      <ProblemNotice problem={pages.moreProblem} />
      {pages.next && (
        <button type="button" class="button secondary" disabled={pages.loadingMore} onClick={pages.loadMore}>
          {pages.loadingMore ? "Loading…" : "Load more"}
        </button>
      )}
    </>
  );
}
