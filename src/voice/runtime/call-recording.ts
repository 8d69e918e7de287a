import { rm } from "node:fs/promises";
import { StereoWavWriter, type RecordingSide, type RecordingSummary } from "../media/wav-writer.ts";

/**
 * A call's recording, which a failing disk (full, gone) stops without touching the call: the first
 * failure is reported, the partial file removed, and the call ends with no recording.
 */
export class CallRecording {
  private writer: StereoWavWriter | null = null;

  constructor(
    private readonly path: string,
    sampleRate: number,
    private readonly failed: (message: string) => void,
  ) {
    try {
      this.writer = new StereoWavWriter(path, { sampleRate });
    } catch (error) {
      this.stop(error);
    }
  }

  writeAt(side: RecordingSide, pcm: Int16Array, at: number): void {
    if (!this.writer) return;
    try {
      this.writer.writeAt(side, pcm, at);
    } catch (error) {
      this.stop(error);
    }
  }

  /** The finished file, or null when the recording stopped. */
  close(): RecordingSummary | null {
    if (!this.writer) return null;
    try {
      return this.writer.close();
    } catch (error) {
      this.stop(error);
      return null;
    }
  }

  private stop(error: unknown): void {
    this.writer = null;
    this.failed(`the recording stopped: ${(error as Error).message}`);
    void rm(this.path, { force: true }).catch(() => {}); // what failed to write may fail to go too
  }
}
