/** A sentence being spoken, so an interruption can tell how much of it the caller actually heard. */
export interface SpokenSegment {
  text: string;
  /** Frames queued for it so far, and played so far. */
  frames: number;
  played: number;
  /** True once synthesis finished (no more frames will come). */
  complete: boolean;
  /** Called when its first frame goes out (the response's latency is measured there). */
  onFirstFrame?: () => void;
}

interface QueuedFrame {
  payload: Uint8Array;
  pcm: Int16Array;
  segment: SpokenSegment | null;
}

/**
 * The agent's outgoing audio, one 20 ms frame per tick: what was queued, what has been played, and
 * which words the caller has heard (for barge-in transcripts).
 */
export class PlaybackQueue {
  private frames: QueuedFrame[] = [];
  private head = 0;
  private segments: SpokenSegment[] = [];

  get idle(): boolean {
    return this.head >= this.frames.length;
  }

  get queuedFrames(): number {
    return this.frames.length - this.head;
  }

  startSegment(text: string): SpokenSegment {
    const segment: SpokenSegment = { text, frames: 0, played: 0, complete: false };
    this.segments.push(segment);
    return segment;
  }

  push(payload: Uint8Array, pcm: Int16Array, segment: SpokenSegment | null): void {
    if (segment) segment.frames++;
    this.frames.push({ payload, pcm, segment });
  }

  /** The frame to play now, if any. */
  next(): QueuedFrame | null {
    if (this.head >= this.frames.length) {
      if (this.frames.length) this.compact();
      return null;
    }
    const frame = this.frames[this.head++];
    if (frame.segment && frame.segment.played++ === 0) frame.segment.onFirstFrame?.();
    if (this.head > 512) this.compact();
    return frame;
  }

  /** Drops everything not yet played; returns the text the caller heard of the current turn. */
  clear(): string {
    this.frames = [];
    this.head = 0;
    const heard = this.heardText();
    this.segments = [];
    return heard;
  }

  /** All sentences of the turn so far: whole ones fully played, the cut one up to its played share of words. */
  heardText(): string {
    const parts: string[] = [];
    for (const segment of this.segments) {
      if (segment.played === 0) break;
      if (segment.complete && segment.played >= segment.frames) {
        parts.push(segment.text);
        continue;
      }
      const words = segment.text.split(/\s+/);
      const share = segment.frames ? segment.played / segment.frames : 0;
      const count = Math.floor(words.length * share);
      if (count > 0) parts.push(words.slice(0, count).join(" "));
      break;
    }
    return parts.join(" ");
  }

  /** Forget finished sentences at the end of a turn. */
  endTurn(): void {
    this.segments = [];
  }

  private compact(): void {
    this.frames = this.frames.slice(this.head);
    this.head = 0;
  }
}
