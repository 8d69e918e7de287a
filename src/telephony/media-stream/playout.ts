// Audio over a WebSocket rides TCP: it arrives late and then in bursts, in chunks of any size. The
// playout cuts it into 20 ms frames and hands one per media-clock tick, after a short pre-buffer,
// so the conversation loop hears the caller at an even pace.

export interface PlayoutStats {
  /** Frames handed to the call. */
  played: number;
  /** Ticks that found nothing to play once playing had begun (the carrier fell behind). */
  underruns: number;
  /** Frames thrown away because the backlog passed its cap (a burst after a long stall). */
  dropped: number;
}

export class FramePlayout {
  private partial: Uint8Array = new Uint8Array(0);
  private readonly queue: Uint8Array[] = [];
  private playing = false;
  readonly stats: PlayoutStats = { played: 0, underruns: 0, dropped: 0 };

  constructor(
    private readonly frameBytes: number,
    /** Frames held before playing starts (and again after an underrun): 2 = 40 ms. */
    private readonly prebuffer = 2,
    /** The longest backlog kept, in frames: older audio is dropped rather than heard late. */
    private readonly maxFrames = 25,
  ) {}

  push(payload: Uint8Array): void {
    let bytes = payload;
    if (this.partial.length) {
      bytes = new Uint8Array(this.partial.length + payload.length);
      bytes.set(this.partial);
      bytes.set(payload, this.partial.length);
    }
    let offset = 0;
    for (; offset + this.frameBytes <= bytes.length; offset += this.frameBytes) this.queue.push(bytes.slice(offset, offset + this.frameBytes));
    this.partial = bytes.slice(offset);
    while (this.queue.length > this.maxFrames) {
      this.queue.shift();
      this.stats.dropped++;
    }
  }

  /** The frame for this tick, or null while pre-buffering or starved. */
  pull(): Uint8Array | null {
    if (!this.playing) {
      if (this.queue.length < this.prebuffer) return null;
      this.playing = true;
    }
    const frame = this.queue.shift();
    if (!frame) {
      this.playing = false;
      this.stats.underruns++;
      return null;
    }
    this.stats.played++;
    return frame;
  }

  get buffered(): number {
    return this.queue.length;
  }
}
