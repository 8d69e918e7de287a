// Files embedded in the executable: `with { type: "file" }` gives the path of the embedded file
// (/$bunfs/… inside the executable), `with { type: "text" }` its contents. The Echogarden WASM
// packages also ship their Emscripten glue without types.
declare module "@echogarden/fvad-wasm/fvad.wasm" {
  const path: string;
  export default path;
}
declare module "*/speex-resampler-wasm/wasm/speex-resampler-simd.wasm" {
  const path: string;
  export default path;
}
declare module "*/speex-resampler-wasm/wasm/speex-resampler-nonsimd.wasm" {
  const path: string;
  export default path;
}
declare module "@echogarden/fvad-wasm" {
  const factory: (options: { wasmBinary: Uint8Array }) => Promise<unknown>;
  export default factory;
}
declare module "@echogarden/speex-resampler-wasm" {
  const factory: (options: { wasmBinary: Uint8Array }) => Promise<unknown>;
  export default factory;
}
declare module "@echogarden/speex-resampler-wasm/simd" {
  const factory: (options: { wasmBinary: Uint8Array }) => Promise<unknown>;
  export default factory;
}
declare module "*/lamejs/dist/lamejs.iife.js" {
  const source: string;
  export default source;
}
