// Data a screen shows: loading, failed (with the problem) or ready, and a way to load it again.
import { useCallback, useEffect, useState } from "preact/hooks";
import { problemOf, type Problem } from "./problem.ts";
import { session } from "./session.ts";

export type Loaded<T> = { status: "loading" } | { status: "failed"; problem: Problem } | { status: "ready"; data: T };

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [Loaded<T>, () => void] {
  const [state, setState] = useState<Loaded<T>>({ status: "loading" });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (data) => live && setState({ status: "ready", data }),
      (error) => {
        session.check(error);
        if (live) setState({ status: "failed", problem: problemOf(error) });
      },
    );
    return () => void (live = false);
  }, [...deps, round]);
  return [state, useCallback(() => setRound((n) => n + 1), [])];
}
