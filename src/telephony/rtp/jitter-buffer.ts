// Puts a call's 20 ms RTP frames back in order without delaying them: the listener is a recogniser,
// not a loudspeaker, so a frame that arrives in order is handed on at once (no pre-buffer, no added
// latency). Only a gap holds the frames after it, until the missing one comes or the gap has waited
// `maxWaitTicks` media-clock ticks; then the missing frames are reported lost (the caller fills them)
// and playing goes on. Duplicates and packets too late to use are dropped. A packet of the stream that
// carries no audio (an RFC 4733 key event shares the audio's sequence numbers) takes its place in order
// as a received frame of silence, so keys are never counted as loss.

/** Sequence numbers compared across the 16-bit wrap (RFC 3550 appendix A.1). */
export const seqAfter = (a: number, b: number) => ((a - b) & 0xffff) !== 0 && ((a - b) & 0xffff) < 0x8000;

export interface JitterStats {
  received: number;
  played: number;
  /** Frames that never came in time (reported as null, filled with silence). */
  lost: number;
  /** Packets that came after their frame had been given up, or after it was played. */
  late: number;
  duplicate: number;
}

/** A frame in order, or null for one that was lost or carried no audio. */
export type FrameSink = (frame: Uint8Array | null) => void;

export class JitterBuffer {
  private readonly held = new Map<number, Uint8Array | null>();
  private next: number | null = null;
  /** Ticks the current gap has waited. */
  private waited = 0;
  readonly stats: JitterStats = { received: 0, played: 0, lost: 0, late: 0, duplicate: 0 };

  constructor(
    private readonly sink: FrameSink,
    /** How long a gap waits for its packet, in 20 ms ticks: 2 absorbs reordering of up to 20–40 ms. */
    private readonly maxWaitTicks = 2,
    /** Frames held at most; more means the far end jumped (a restart), and the buffer follows it. */
    private readonly capacity = 50,
  ) {}

  /** A packet of the stream: its audio frame, or null for one that carries none (a key event). */
  push(sequence: number, frame: Uint8Array | null): void {
    this.stats.received++;
    if (this.next === null) this.next = sequence;
    if (sequence === this.next) {
      this.play(frame);
      this.flush();
      return;
    }
    if (!seqAfter(sequence, this.next)) {
      this.stats.late++;
      return;
    }
    if (this.held.has(sequence)) {
      this.stats.duplicate++;
      return;
    }
    this.held.set(sequence, frame);
    if (this.held.size > this.capacity) this.giveUpGap();
  }

  /** Called once per 20 ms tick: a gap that has waited long enough is given up. */
  tick(): void {
    if (this.held.size === 0) return;
    if (++this.waited >= this.maxWaitTicks) this.giveUpGap();
  }

  private play(frame: Uint8Array | null): void {
    this.stats.played++;
    this.next = (this.next! + 1) & 0xffff;
    this.sink(frame);
  }

  /** Plays on while the held frames follow in order; a gap left open restarts its wait. */
  private flush(): void {
    while (this.held.has(this.next!)) {
      const frame = this.held.get(this.next!)!;
      this.held.delete(this.next!);
      this.play(frame);
    }
    this.waited = 0;
  }

  /** The missing frames before the oldest held one are lost; a gap wider than capacity is a jump, followed without filling. */
  private giveUpGap(): void {
    let oldest: number | null = null;
    for (const sequence of this.held.keys()) if (oldest === null || seqAfter(oldest, sequence)) oldest = sequence;
    const missing = (oldest! - this.next!) & 0xffff;
    if (missing <= this.capacity) {
      for (let i = 0; i < missing; i++) this.sink(null);
      this.stats.lost += missing;
    }
    this.next = oldest;
    this.flush();
  }
}
