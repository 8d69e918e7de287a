// What a screen shows while it loads, when there is nothing yet, and when a call failed.
import type { ComponentChildren } from "preact";
import type { Problem } from "../lib/problem.ts";

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <div class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children}
    </div>
  );
}

/** A refusal in words; `children` offer a way out (a link). The server's code and words and the request id wait under "Details", for a report. */
export function ProblemNotice({ problem, onRetry, children }: { problem: Problem | null; onRetry?: () => void; children?: ComponentChildren }) {
  if (!problem) return null;
  return (
    <div class="notice error" role="alert">
      <p>{problem.message}</p>
      {children}
      <ProblemDetails problem={problem} />
      {onRetry && (
        <button type="button" class="button secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

function ProblemDetails({ problem }: { problem: Problem }) {
  if (!problem.requestId) return null;
  return (
    <details class="problem-details">
      <summary>Details</summary>
      <p class="muted small">
        {problem.code && <code>{problem.code}</code>} {problem.detail}
      </p>
      <p class="muted small">
        Request <code class="reference">{problem.requestId}</code>
      </p>
    </details>
  );
}

export function Success({ children }: { children: ComponentChildren }) {
  return (
    <div class="notice success" role="status">
      {children}
    </div>
  );
}

/** A loaded value's waiting and failed states (the ready one is the screen's own). */
export function LoadState({ state, label, onRetry }: { state: { status: string; problem?: Problem }; label: string; onRetry: () => void }) {
  if (state.status === "loading") return <Loading label={label} />;
  if (state.status === "failed") return <ProblemNotice problem={state.problem ?? null} onRetry={onRetry} />;
  return null;
}
