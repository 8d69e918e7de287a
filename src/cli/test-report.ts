// What `parley test` prints: a line per finished case while the run goes, then why each failed case failed.

import type { TestCheck, TestResult, TestRunWithResults, TestTranscriptTurn } from "../sdk/ts/src/index.ts";

/** `1 case`, `3 cases`. */
export const cases = (n: number) => `${n} case${n === 1 ? "" : "s"}`;

export const finished = (result: TestResult) => result.status !== "queued" && result.status !== "running";

const MARK: Record<TestResult["status"], string> = { passed: "PASS", failed: "FAIL", error: "ERROR", canceled: "CANCELED", queued: "QUEUED", running: "RUNNING" };

const duration = (ms: number | null) => (ms === null ? "" : ` (${(ms / 1000).toFixed(1)} s)`);

/** `expectation 2 (agent_says contains "open"): <detail>`: which expectation, and what happened. */
export function checkLine(check: TestCheck): string {
  const { type, ...rest } = check.expectation;
  const given = Object.entries(rest)
    .filter(([key]) => key !== "judge_provider_id")
    .map(([key, value]) => `${key} ${JSON.stringify(value)}`)
    .join(", ");
  return `expectation ${check.index + 1} (${String(type)}${given ? ` ${given}` : ""}): ${check.detail}`;
}

/** One line per finished case, with the first failure's reason. */
export function progressLine(result: TestResult, done: number, total: number): string {
  const why = result.status === "failed" && result.failures[0] ? `: ${checkLine(result.failures[0])}` : result.status === "error" ? `: ${result.error ?? "error"}` : "";
  return `[${done}/${total}] ${MARK[result.status]} ${result.name}${duration(result.duration_ms)}${why}`;
}

const turnLine = (turn: TestTranscriptTurn) => `${turn.role}: ${turn.text}`;

export function transcriptText(transcript: TestTranscriptTurn[]): string {
  return transcript.map(turnLine).join("\n");
}

/**
 * The transcript lines around where a check looked: the agent turn it names (`turn`, 0-based among
 * the agent's turns) with a line either side, else the call's last lines.
 */
export function transcriptAround(transcript: TestTranscriptTurn[], check: TestCheck, context = 2): string[] {
  if (!transcript.length) return ["(no transcript)"];
  const turn = typeof check.expectation.turn === "number" ? check.expectation.turn : null;
  const agentLines = transcript.flatMap((t, i) => (t.role === "agent" ? [i] : []));
  const anchor = turn !== null && turn < agentLines.length ? agentLines[turn] : null;
  const from = anchor === null ? Math.max(0, transcript.length - 2 * context - 1) : Math.max(0, anchor - context);
  const to = anchor === null ? transcript.length : Math.min(transcript.length, anchor + context + 1);
  const lines = transcript.slice(from, to).map((t, i) => `${from + i === anchor ? ">" : " "} ${turnLine(t)}`);
  if (from > 0) lines.unshift("  …");
  if (to < transcript.length) lines.push("  …");
  return lines;
}

/** The end of the run: each case that did not pass, why, with its call and transcript; then the totals. */
export function summary(run: TestRunWithResults, agent: { id: string; name: string }): string {
  const out: string[] = [];
  const bad = run.results.filter((r) => r.status !== "passed");
  for (const result of bad) {
    out.push("", `${MARK[result.status]} ${result.name}${result.call_id ? ` · call ${result.call_id}` : ""}`);
    if (result.status === "error") out.push(`  error: ${result.error ?? "unknown"}`);
    for (const check of result.failures) {
      out.push(`  ${checkLine(check)}`);
      out.push(...transcriptAround(result.transcript, check).map((line) => `    ${line}`));
    }
  }
  const count = (status: string) => run.results.filter((r) => r.status === status).length;
  const totals = [`${count("passed")} passed`, `${count("failed")} failed`, `${count("error")} errored`, `${count("canceled")} canceled`].join(", ");
  out.push("", `${run.status === "passed" ? "PASSED" : "FAILED"}: ${cases(run.results.length)}, ${totals}${duration(run.duration_ms)} · ${agent.name} (${agent.id}) version ${run.agent_version} · run ${run.id}`);
  return out.join("\n") + "\n";
}
