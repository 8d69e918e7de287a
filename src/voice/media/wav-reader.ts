// Reads 16-bit PCM WAV files: whole (tests, short clips) or a block at a time (MP3 conversion of a
// long recording without holding it all in memory).
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { decodeWav, parseWavHeader, type WavInfo } from "./wav-format.ts";

export function readWavFile(path: string): { info: WavInfo; samples: Int16Array } {
  return decodeWav(readFileSync(path));
}

export class WavFileReader {
  readonly info: WavInfo;
  private fd: number;
  /** Frames read so far. */
  private frame = 0;

  constructor(readonly path: string) {
    this.fd = openSync(path, "r");
    try {
      const fd = this.fd;
      this.info = parseWavHeader((offset, length) => {
        const bytes = new Uint8Array(length);
        return bytes.subarray(0, readSync(fd, bytes, 0, length, offset));
      }, fstatSync(fd).size);
    } catch (error) {
      closeSync(this.fd);
      throw error;
    }
  }

  /** The next up to `frames` frames (interleaved), or null at the end. */
  read(frames: number): Int16Array | null {
    const count = Math.min(frames, this.info.frames - this.frame);
    if (count <= 0) return null;
    const blockAlign = this.info.channels * 2;
    const samples = new Int16Array(count * this.info.channels);
    const bytes = new Uint8Array(samples.buffer);
    const got = readSync(this.fd, bytes, 0, bytes.length, this.info.dataOffset + this.frame * blockAlign);
    const whole = Math.floor(got / blockAlign);
    if (whole === 0) return null; // the file is shorter than its header says
    this.frame += whole;
    return whole === count ? samples : samples.subarray(0, whole * this.info.channels);
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
