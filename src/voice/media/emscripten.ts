// Starts an Emscripten-built WASM library from the bytes of its .wasm, read from the path that
// `import … with { type: "file" }` gives, so it also works inside the compiled executable (where
// that path is in Bun's embedded /$bunfs/ and fetch or file URLs would find nothing).
//
// One instance serves every call: JS runs on one thread and each call is synchronous, so calls
// share the module's heap and scratch buffers and each keeps only its own C state in it.
import { readFileSync } from "node:fs";

/** What our wrappers use of an Emscripten module; the HEAP views are replaced when memory grows. */
export interface EmscriptenModule {
  HEAPU8: Uint8Array;
  HEAP16: Int16Array;
  HEAPU32: Uint32Array;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
}

export type EmscriptenFactory = (options: { wasmBinary: Uint8Array }) => Promise<unknown>;

export async function instantiateEmscripten<M extends EmscriptenModule>(factory: EmscriptenFactory, wasmPath: string): Promise<M> {
  const wasmBinary = readFileSync(wasmPath);
  return (await factory({ wasmBinary })) as M;
}

/** A buffer in a module's heap that grows on demand; reused by every caller of that module. */
export class HeapScratch {
  private pointer = 0;
  private bytes = 0;

  constructor(private readonly module: EmscriptenModule) {}

  /** The address of at least `bytes` bytes; valid until the next call. */
  reserve(bytes: number): number {
    if (bytes > this.bytes) {
      if (this.pointer !== 0) this.module._free(this.pointer);
      this.bytes = Math.max(bytes, this.bytes * 2, 1024);
      this.pointer = this.module._malloc(this.bytes);
      if (this.pointer === 0) throw new Error(`WASM heap exhausted reserving ${this.bytes} bytes`);
    }
    return this.pointer;
  }
}
