import type { AppContext } from "../core/context.ts";
import { unseal } from "../lib/sealed.ts";
import type { OutboundPolicy } from "../net/outbound.ts";
import { type ProviderRow } from "./store.ts";

/** What a client needs to talk to one provider: where, with which key, under which URL rules. */
export interface ProviderConnection {
  id: string;
  kind: ProviderRow["kind"];
  baseUrl: string;
  apiKey: string | null;
  policy: OutboundPolicy;
}

export const DEFAULT_BASE_URLS: Record<ProviderRow["kind"], string | null> = {
  "openai-compatible": null, // no default: OpenAI itself, vLLM, Ollama… each has its own
  deepgram: "https://api.deepgram.com",
  elevenlabs: "https://api.elevenlabs.io",
};

export function connectionOf(ctx: AppContext, row: ProviderRow): ProviderConnection {
  return {
    id: row.id,
    kind: row.kind,
    baseUrl: (row.baseUrl ?? DEFAULT_BASE_URLS[row.kind] ?? "").replace(/\/+$/, ""),
    apiKey: row.apiKey ? unseal(ctx.keys.encryption, row.apiKey) : null,
    policy: { allowPrivate: ctx.config.allowPrivateUrls },
  };
}

/** A provider's failure, worded for the person who configured it. */
export class ProviderError extends Error {
  constructor(message: string, readonly status: number | null = null) {
    super(message);
  }
}
