// A form's or button's call to the API: busy while it runs, then the problem it met (fields named by
// errors[] are highlighted by <Field>, and the first of them takes the focus).
import { useState } from "preact/hooks";
import { problemOf, type Problem } from "./problem.ts";
import { session } from "./session.ts";

export interface Action {
  busy: boolean;
  problem: Problem | null;
  /** Runs `work`; answers whether it succeeded. */
  run(work: () => Promise<void>): Promise<boolean>;
  reset(): void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  return {
    busy,
    problem,
    async run(work) {
      setBusy(true);
      setProblem(null);
      try {
        await work();
        return true;
      } catch (error) {
        session.check(error);
        const found = problemOf(error);
        setProblem(found);
        requestAnimationFrame(() => {
          const field = Object.keys(found.fields)[0];
          (document.querySelector(`[name="${CSS.escape(field ?? "")}"][aria-invalid="true"]`) as HTMLElement | null)?.focus();
        });
        return false;
      } finally {
        setBusy(false);
      }
    },
    reset: () => setProblem(null),
  };
}
