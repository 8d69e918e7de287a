// Cuts PCM that arrives in arbitrary chunk sizes (synthesised speech, resampled audio) into the
// fixed frames the carrier and the VAD want.

export class PcmFramer {
  private buffer: Int16Array;
  private length = 0;

  constructor(readonly frameSamples: number) {
    if (!(Number.isInteger(frameSamples) && frameSamples > 0)) throw new RangeError(`frame size must be a positive integer, got ${frameSamples}`);
    this.buffer = new Int16Array(frameSamples * 4);
  }

  /** Samples waiting for a whole frame. */
  get pending(): number {
    return this.length;
  }

  push(pcm: Int16Array): void {
    if (this.length + pcm.length > this.buffer.length) {
      const grown = new Int16Array(Math.max(this.buffer.length * 2, this.length + pcm.length));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(pcm, this.length);
    this.length += pcm.length;
  }

  /** The next whole frame (a new array), or null until enough samples have been pushed. */
  next(): Int16Array | null {
    if (this.length < this.frameSamples) return null;
    const frame = this.buffer.slice(0, this.frameSamples);
    this.buffer.copyWithin(0, this.frameSamples, this.length);
    this.length -= this.frameSamples;
    return frame;
  }

  /** The next frame, the last one padded with silence; null once nothing is pending. */
  flush(): Int16Array | null {
    if (this.length >= this.frameSamples) return this.next();
    if (this.length === 0) return null;
    const frame = new Int16Array(this.frameSamples);
    frame.set(this.buffer.subarray(0, this.length));
    this.length = 0;
    return frame;
  }

  clear(): void {
    this.length = 0;
  }
}
