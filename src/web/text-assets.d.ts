// The browser scripts assets.ts imports `with { type: "text" }` (./voice/client.js …): their source text, not modules.
declare module "*/voice/client.js" {
  const source: string;
  export default source;
}
declare module "*/voice/worklet.js" {
  const source: string;
  export default source;
}
declare module "*/widget/embed.js" {
  const source: string;
  export default source;
}
