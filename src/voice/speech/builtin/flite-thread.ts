// Flite's thread (see FliteThread in flite.ts): it loads Flite, speaks the sentences it is sent one at
// a time, and hands the samples back (at the voice's own rate) without copying them. Resampling stays
// on the caller's side: the Emscripten-built resampler does not start inside a worker.
import { loadFlite, synthesizeUnit } from "./flite-engine.ts";

/** A sentence to speak; `load` only loads Flite (a warm-up). */
export type FliteRequest =
  | { id: number; type: "speak"; text: string; voice: string; speed: number }
  | { id: number; type: "load" };
export type FliteReply = { id: number; pcm: Int16Array } | { id: number; error: string };

declare const self: Worker;

self.onmessage = ({ data }: MessageEvent<FliteRequest>) => {
  try {
    if (data.type === "load") {
      loadFlite();
      self.postMessage({ id: data.id, pcm: new Int16Array(0) } satisfies FliteReply);
      return;
    }
    const pcm = synthesizeUnit(data.text, data.voice, data.speed);
    self.postMessage({ id: data.id, pcm } satisfies FliteReply, [pcm.buffer as ArrayBuffer]);
  } catch (error) {
    self.postMessage({ id: data.id, error: String((error as Error)?.message ?? error) } satisfies FliteReply);
  }
};
