import type { AppContext } from "../../core/context.ts";
import { countRefusal } from "../../core/refusal-count.ts";
import { databaseRefusal } from "../../db/refusals.ts";
import type { CallJournal } from "../../voice/runtime/journal.ts";
import { storedRecordingPath } from "./recording.ts";
import { storeRecording } from "./recording-store.ts";
import { addTimelineEvent, endCall, markAnswered, recordTurn, reportCallError, reportTransfer, type CallRow } from "./lifecycle.ts";

/** How soon a report the database refused is tried again. */
const RETRY_MS = 250;

/**
 * The journal a live call reports into: each report is one transaction with its events, written in
 * the order the call made them. A report the database refuses for a moment is kept, with every
 * report after it, and written once the database takes it: the call talks on, and its transcript,
 * timeline and ending are all recorded, in order. The session never sees the error (it would end
 * the call halfway through its own bookkeeping).
 */
export function callJournal(ctx: AppContext, call: Pick<CallRow, "id" | "workspaceId" | "createdAt">): CallJournal {
  const queue: { kind: string; write: () => void }[] = [];
  let retry: ReturnType<typeof setTimeout> | null = null;
  let refusedSince: number | null = null;

  const drain = () => {
    retry = null;
    while (queue.length) {
      const report = queue[0];
      try {
        report.write();
      } catch (error) {
        // Any other error is a defect of the report itself: retrying would only hold back every report after it.
        if (databaseRefusal(error)) {
          countRefusal(ctx.metrics, "calls", error);
          if (refusedSince === null) ctx.logger.warn("the database refused a call's report; it is kept and tried again", { call_id: call.id, report: report.kind, error });
          refusedSince ??= Date.now();
          retry = setTimeout(drain, RETRY_MS);
          return;
        }
        ctx.logger.error("a call's report could not be written and is dropped", { call_id: call.id, report: report.kind, error });
      }
      queue.shift();
    }
    if (refusedSince !== null) ctx.logger.info("a call's held reports are written", { call_id: call.id, held_ms: Date.now() - refusedSince });
    refusedSince = null;
  };

  const report = (kind: string, write: () => void) => {
    queue.push({ kind, write });
    if (!retry) drain();
  };

  return {
    note: (type, data) => report(type, () => addTimelineEvent(ctx, call, type, data)),
    answered: () => report("answered", () => void markAnswered(ctx, call.id)),
    turn: (turn) => report("turn", () => recordTurn(ctx, call.id, turn)),
    error: (code, message, fatal) => report("error", () => reportCallError(ctx, call.id, code, message, fatal)),
    transfer: (to, reason) => report("transfer", () => reportTransfer(ctx, call.id, to, reason)),
    end: (ending) =>
      report("end", () => {
        // Its end committed (recording_url in its events): the WAV written here moves into the file store.
        if (endCall(ctx, call.id, ending) && ending.recordingPath) storeRecording(ctx, call, storedRecordingPath(ctx.dataDir.root, ending.recordingPath));
      }),
  };
}
