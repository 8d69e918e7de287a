import type { TurnRecord } from "./journal.ts";

/** A caller utterance whose words are not known yet (its recognition is still running). */
export interface PendingTurn {
  readonly startMs: number;
}

/**
 * Writes transcript turns in the order they started, whatever order they are known in: a caller's
 * words arrive when recognition finishes, after keys pressed or an agent turn that began later.
 * A turn waits only for pending utterances that started before it.
 */
export class TranscriptOrder {
  private pending = new Set<PendingTurn>();
  private ready: TurnRecord[] = [];

  constructor(private readonly write: (turn: TurnRecord) => void) {}

  /** Holds the place of an utterance that started at `startMs`; settle it with its turn or nothing. */
  open(startMs: number): PendingTurn {
    const turn = { startMs };
    this.pending.add(turn);
    return turn;
  }

  settle(place: PendingTurn, turn: TurnRecord | null): void {
    if (!this.pending.delete(place)) return;
    if (turn) this.insert(turn);
    this.release();
  }

  /** A turn known in full now (the agent's, keys pressed). */
  add(turn: TurnRecord): void {
    this.insert(turn);
    this.release();
  }

  /** The call ended: utterances still being recognised will not come; write what is known. */
  close(): void {
    this.pending.clear();
    this.release();
  }

  private insert(turn: TurnRecord): void {
    let at = this.ready.length;
    while (at > 0 && this.ready[at - 1].start_ms > turn.start_ms) at--;
    this.ready.splice(at, 0, turn);
  }

  private release(): void {
    let earliestPending = Infinity;
    for (const place of this.pending) earliestPending = Math.min(earliestPending, place.startMs);
    while (this.ready.length && this.ready[0].start_ms < earliestPending) this.write(this.ready.shift()!);
  }
}
