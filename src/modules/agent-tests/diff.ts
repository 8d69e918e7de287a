import type { Static } from "elysia";
import { sameWords } from "../../voice/turns/words.ts";
import type { TranscriptTurn } from "./definition.ts";
import type { ResultDiff, ResultRow } from "./models.ts";

type Turn = Static<typeof TranscriptTurn>;

/**
 * What changed since the previous result of the same case: its status, and the transcript turns whose
 * words differ (case and punctuation aside, as recognisers differ there), position by position.
 */
export function resultDiff(previous: Pick<ResultRow, "runId" | "status" | "transcript">, status: string, transcript: Turn[]): Static<typeof ResultDiff> {
  const before = (previous.transcript ?? []) as Turn[];
  const turns: Static<typeof ResultDiff>["turns"] = [];
  for (let index = 0; index < Math.max(before.length, transcript.length); index++) {
    const was = before[index];
    const now = transcript[index];
    if (was && now && was.role === now.role && sameWords(was.text, now.text)) continue;
    turns.push({ index, role: (now ?? was).role, before: was?.text ?? null, after: now?.text ?? null });
  }
  return { previous_run_id: previous.runId, previous_status: previous.status, status_changed: previous.status !== status, turns };
}
