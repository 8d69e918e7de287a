import type { AppContext } from "../core/context.ts";
import { findProvider } from "../providers/store.ts";
import { connectionOf } from "../providers/connection.ts";
import { embedRemote } from "../providers/openai/embeddings.ts";
import { BUILTIN_DIMENSION, BUILTIN_EMBEDDER_ID } from "./embedding/builtin/identity.ts";

/**
 * The built-in embedder carries WordNet (megabytes of inlined data): load it on first use, so
 * commands and servers that never embed do not pay for it at start-up.
 */
const builtinEmbedder = () => import("./embedding/builtin/index.ts");

export interface Embedder {
  /** Identifies the vector space: indexes built by different embedders are never mixed. */
  fingerprint: string;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** The embedder a knowledge base uses: the built-in offline one or an openai-compatible `/embeddings`. */
export function embedderFor(ctx: AppContext, workspaceId: string, kb: { embedderProvider: string; embedderModel: string | null }): Embedder {
  if (kb.embedderProvider === "builtin") {
    return { fingerprint: `builtin:${BUILTIN_EMBEDDER_ID}:${BUILTIN_DIMENSION}`, embed: async (texts) => (await builtinEmbedder()).embedTexts(texts) };
  }
  const row = findProvider(ctx.db, workspaceId, kb.embedderProvider);
  if (!row) throw new Error(`the embedder's provider connection ${kb.embedderProvider} no longer exists`);
  const connection = connectionOf(ctx, row);
  const model = kb.embedderModel ?? "text-embedding-3-small";
  return { fingerprint: `${row.id}:${model}`, embed: (texts, signal) => embedRemote(connection, model, texts, signal) };
}
