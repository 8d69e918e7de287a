// Audio over a WebSocket comes in chunks of any size. The cutter turns them into whole 20 ms frames
// as they arrive, keeping the odd bytes for the next chunk: nothing is held back to pace the audio,
// since the listener is a recogniser that counts frames, not a loudspeaker that needs an even pace.

export class FrameCutter {
  private partial: Uint8Array = new Uint8Array(0);

  constructor(private readonly frameBytes: number) {}

  /** The whole frames this chunk completes (with what was left over from the last one). */
  cut(payload: Uint8Array): Uint8Array[] {
    let bytes = payload;
    if (this.partial.length) {
      bytes = new Uint8Array(this.partial.length + payload.length);
      bytes.set(this.partial);
      bytes.set(payload, this.partial.length);
    }
    const frames: Uint8Array[] = [];
    let offset = 0;
    for (; offset + this.frameBytes <= bytes.length; offset += this.frameBytes) frames.push(bytes.slice(offset, offset + this.frameBytes));
    this.partial = bytes.slice(offset);
    return frames;
  }
}
