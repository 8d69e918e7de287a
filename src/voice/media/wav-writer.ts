// Call recordings as they happen: a stereo 16-bit WAV with the caller on the left channel and the
// agent on the right. Each side writes into its own timeline (by sample offset, or appended after
// its last write) and gaps are silence, so the two sides may arrive unevenly: the agent's audio in
// bursts ahead of playout, the caller's a frame at a time.
//
// Audio is gathered in memory and written in blocks (default 500 ms) once both sides have reached
// it, or once one side runs `maxSkewMs` ahead of the other; audio that arrives for a stretch already
// on disk is patched into it. The header's sizes are rewritten after every block, so a recording cut
// short by a crash is still a valid file up to its last block.
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { WAV_HEADER_BYTES, wavHeader } from "./wav-format.ts";

/** Caller → left channel, agent → right. */
export type RecordingSide = "caller" | "agent";

export interface StereoWavWriterOptions {
  /** 8000 or 16000 in practice; any rate is written as given. */
  sampleRate: number;
  /** Audio gathered before a disk write. Default 500 ms. */
  flushMs?: number;
  /** How far one side may run ahead before the other's missing stretch is written as silence. Default 2000 ms. */
  maxSkewMs?: number;
}

export interface RecordingSummary {
  path: string;
  durationMs: number;
  /** Size of the finished file. */
  bytes: number;
}

const CHANNEL: Record<RecordingSide, 0 | 1> = { caller: 0, agent: 1 };

export class StereoWavWriter {
  readonly sampleRate: number;
  private fd: number;
  private readonly flushFrames: number;
  private readonly maxSkewFrames: number;
  /** Interleaved frames from `flushed` on, not yet on disk; zero where nothing was written. */
  private pending: Int16Array;
  /** Frames on disk. */
  private flushed = 0;
  /** Per side: the furthest frame written, and where an appending write goes. */
  private readonly ends = [0, 0];
  private readonly cursors = [0, 0];

  constructor(
    readonly path: string,
    options: StereoWavWriterOptions,
  ) {
    this.sampleRate = options.sampleRate;
    this.flushFrames = Math.max(1, Math.round(((options.flushMs ?? 500) * this.sampleRate) / 1000));
    this.maxSkewFrames = Math.round(((options.maxSkewMs ?? 2000) * this.sampleRate) / 1000);
    // Starts at a block plus slack; grows (up to about the skew) only when a side runs ahead.
    this.pending = new Int16Array(2 * (this.flushFrames + Math.ceil(this.sampleRate / 10)));
    this.fd = openSync(path, "w+");
    writeSync(this.fd, wavHeader({ sampleRate: this.sampleRate, channels: 2 }, 0), 0, WAV_HEADER_BYTES, 0);
  }

  /** Appends `pcm` to `side` right after that side's previous write. */
  write(side: RecordingSide, pcm: Int16Array): void {
    this.writeAt(side, pcm, this.cursors[CHANNEL[side]]);
  }

  /** Places `pcm` on `side` starting at `atMs` from the start of the recording. */
  writeAtMs(side: RecordingSide, pcm: Int16Array, atMs: number): void {
    this.writeAt(side, pcm, Math.round((atMs * this.sampleRate) / 1000));
  }

  /** Places `pcm` on `side` starting at frame `at`; later writes to the same stretch win. */
  writeAt(side: RecordingSide, pcm: Int16Array, at: number): void {
    if (this.fd < 0) throw new Error("recording already closed");
    const channel = CHANNEL[side];
    let source = pcm;
    let position = Math.round(at);
    if (position < 0) {
      source = source.subarray(Math.min(source.length, -position));
      position = 0;
    }
    const end = position + source.length;
    this.cursors[channel] = end;
    if (end > this.ends[channel]) this.ends[channel] = end;

    const [left, right] = this.ends;
    const settled = Math.max(Math.min(left, right), Math.max(left, right) - this.maxSkewFrames);
    if (settled - this.flushed >= this.flushFrames) this.commit(settled);

    if (position < this.flushed) {
      const late = Math.min(source.length, this.flushed - position);
      this.patch(channel, source.subarray(0, late), position);
      source = source.subarray(late);
      position += late;
    }
    if (source.length === 0) return;
    this.reserve(end - this.flushed);
    const pending = this.pending;
    let index = 2 * (position - this.flushed) + channel;
    for (let i = 0; i < source.length; i++, index += 2) pending[index] = source[i];
  }

  /** Length of the recording so far (the further-reaching side). */
  get durationMs(): number {
    return (Math.max(this.ends[0], this.ends[1]) * 1000) / this.sampleRate;
  }

  /** Writes what is left, fixes the header and closes the file. */
  close(): RecordingSummary {
    if (this.fd < 0) throw new Error("recording already closed");
    const frames = Math.max(this.ends[0], this.ends[1]);
    this.commit(frames);
    closeSync(this.fd);
    this.fd = -1;
    return { path: this.path, durationMs: (frames * 1000) / this.sampleRate, bytes: WAV_HEADER_BYTES + frames * 4 };
  }

  /** Writes frames [flushed, target) to disk (silence past what is pending) and updates the header. */
  private commit(target: number): void {
    const count = target - this.flushed;
    if (count <= 0) return;
    const capacity = this.pending.length / 2;
    const fromPending = Math.min(count, capacity);
    let offset = WAV_HEADER_BYTES + this.flushed * 4;
    offset += this.writeBytes(this.pending.subarray(0, fromPending * 2), offset);
    // A side that jumped far ahead leaves a gap longer than the buffer: silence, a buffer at a time.
    for (let rest = count - fromPending; rest > 0; ) {
      const frames = Math.min(rest, capacity);
      this.pending.fill(0);
      offset += this.writeBytes(this.pending.subarray(0, frames * 2), offset);
      rest -= frames;
    }
    // Shift only the stretch written so far, so a commit costs what was written, not the buffer.
    const occupied = Math.min(capacity, Math.max(this.ends[0], this.ends[1]) - this.flushed);
    if (fromPending < occupied) {
      this.pending.copyWithin(0, fromPending * 2, occupied * 2);
      this.pending.fill(0, (occupied - fromPending) * 2, occupied * 2);
    } else {
      this.pending.fill(0, 0, Math.max(occupied, fromPending) * 2);
    }
    this.flushed = target;
    this.writeSizes(target * 4);
  }

  /** Overwrites one channel of frames already on disk (audio that arrived late). */
  private patch(channel: number, pcm: Int16Array, at: number): void {
    const frames = new Int16Array(pcm.length * 2);
    const bytes = new Uint8Array(frames.buffer);
    const offset = WAV_HEADER_BYTES + at * 4;
    readSync(this.fd, bytes, 0, bytes.length, offset);
    for (let i = 0; i < pcm.length; i++) frames[2 * i + channel] = pcm[i];
    this.writeBytes(frames, offset);
  }

  private reserve(frames: number): void {
    if (frames * 2 <= this.pending.length) return;
    const grown = new Int16Array(Math.max(frames * 2, this.pending.length * 2));
    grown.set(this.pending);
    this.pending = grown;
  }

  private writeSizes(dataBytes: number): void {
    const sizes = new DataView(new ArrayBuffer(4));
    sizes.setUint32(0, 36 + dataBytes, true);
    writeSync(this.fd, new Uint8Array(sizes.buffer), 0, 4, 4);
    sizes.setUint32(0, dataBytes, true);
    writeSync(this.fd, new Uint8Array(sizes.buffer), 0, 4, 40);
  }

  private writeBytes(samples: Int16Array, position: number): number {
    const bytes = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written, position + written);
    return bytes.length;
  }
}
