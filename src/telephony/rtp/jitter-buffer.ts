// A small jitter buffer for 20 ms frames: packets are put back in order, duplicates and packets too
// late to play are dropped, and a frame that never came is reported as lost (the caller fills it).

/** Sequence numbers compared across the 16-bit wrap (RFC 3550 appendix A.1). */
export const seqAfter = (a: number, b: number) => ((a - b) & 0xffff) !== 0 && ((a - b) & 0xffff) < 0x8000;

export interface JitterStats {
  received: number;
  played: number;
  /** Frames that were due and had not come (filled with silence). */
  lost: number;
  /** Packets that came after their frame had been played, or twice. */
  late: number;
  duplicate: number;
}

export class JitterBuffer {
  private readonly slots = new Map<number, Uint8Array>();
  private next: number | null = null;
  private started = false;
  readonly stats: JitterStats = { received: 0, played: 0, lost: 0, late: 0, duplicate: 0 };

  /** `depth`: frames held back before playing (2 = 40 ms), the reordering this buffer absorbs. */
  constructor(private readonly depth = 2, private readonly capacity = 50) {}

  push(sequence: number, frame: Uint8Array): void {
    this.stats.received++;
    // Before playing starts, an earlier packet arriving second still opens the stream.
    if (!this.started && this.next !== null && seqAfter(this.next, sequence)) this.next = sequence;
    if (this.next !== null && !seqAfter(sequence, this.next) && sequence !== this.next) {
      this.stats.late++;
      return;
    }
    if (this.slots.has(sequence)) {
      this.stats.duplicate++;
      return;
    }
    this.slots.set(sequence, frame);
    this.next ??= sequence;
    // A far end that jumped ahead (a restart, a long gap): follow it rather than wait forever.
    if (this.slots.size > this.capacity) this.resync();
  }

  /**
   * The next frame, called once per 20 ms tick: the frame, null when it is lost (the caller plays
   * silence), or undefined while the buffer is still filling (nothing to play yet).
   */
  pop(): Uint8Array | null | undefined {
    if (this.next === null) return undefined;
    // Playing starts once `depth` frames are in, so early reordering is absorbed too.
    if (!this.started) {
      if (this.slots.size < this.depth) return undefined;
      this.started = true;
    }
    const frame = this.slots.get(this.next);
    if (frame === undefined && this.slots.size < this.depth) return undefined;
    this.slots.delete(this.next);
    this.next = (this.next + 1) & 0xffff;
    if (frame === undefined) {
      this.stats.lost++;
      return null;
    }
    this.stats.played++;
    return frame;
  }

  /** Drops the oldest frames down to capacity and plays on from the oldest one left. */
  private resync(): void {
    const ordered = [...this.slots.keys()].sort((a, b) => (seqAfter(a, b) ? 1 : seqAfter(b, a) ? -1 : 0));
    for (const sequence of ordered.slice(0, ordered.length - this.capacity)) this.slots.delete(sequence);
    this.next = ordered[Math.max(0, ordered.length - this.capacity)];
  }
}
