// A run's or a case's status as a coloured word (the call list's tones: live, done, bad).
const TONES: Record<string, string> = { queued: "", running: "live", passed: "done", failed: "bad", error: "bad", canceled: "" };
const WORDS: Record<string, string> = { queued: "Queued", running: "Running", passed: "Passed", failed: "Failed", error: "Error", canceled: "Canceled" };

export function TestStatus({ status }: { status: string }) {
  return <span class={`calls-status ${TONES[status] ?? ""} tests-${status}`}>{WORDS[status] ?? status}</span>;
}

export const isRunning = (status: string) => status === "queued" || status === "running";
