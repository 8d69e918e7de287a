// A run's or a case's status as a coloured word (the call list's tones: live, done, bad), and how long it took.
const TONES: Record<string, string> = { queued: "", running: "live", passed: "done", failed: "bad", error: "bad", canceled: "" };
const WORDS: Record<string, string> = { queued: "Queued", running: "Running", passed: "Passed", failed: "Failed", error: "Error", canceled: "Canceled" };

export function TestStatus({ status }: { status: string }) {
  return <span class={`calls-status ${TONES[status] ?? ""} tests-${status}`}>{WORDS[status] ?? status}</span>;
}

export const isRunning = (status: string) => status === "queued" || status === "running";

/** "—" before it ends, "240 ms" under a second, "12.3 s" above. */
export const formatDuration = (ms: number | null) => (ms === null ? "—" : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
