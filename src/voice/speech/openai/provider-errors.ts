// Speech provider failures in words a person configuring the provider can act on. Shared by the
// OpenAI, Deepgram and ElevenLabs clients.

import { openOutbound, OutboundFailed, OutboundRefused, OutboundTimeout, type OutboundPolicy } from "../../../net/outbound.ts";
import { SpeechProviderError } from "../types.ts";

/** Maps URL-rule refusals, time-outs and network errors from src/net to a SpeechProviderError. */
export function speechErrorFrom(error: unknown, provider: string): SpeechProviderError {
  if (error instanceof SpeechProviderError) return error;
  if (error instanceof OutboundRefused) return new SpeechProviderError(`${provider}: refused by the URL rules: ${error.message}`);
  if (error instanceof OutboundTimeout) return new SpeechProviderError(`${provider}: did not answer in time: ${error.message}`);
  if (error instanceof OutboundFailed) return new SpeechProviderError(`${provider}: cannot be reached: ${error.message}`);
  if ((error as Error)?.name === "TimeoutError") return new SpeechProviderError(`${provider}: did not answer in time`);
  return new SpeechProviderError(`${provider}: ${(error as Error)?.message ?? String(error)}`);
}

/** An HTTP error answer: the status plus the provider's own message when its body carries one. */
export function speechErrorFromStatus(provider: string, status: number, body: string): SpeechProviderError {
  return new SpeechProviderError(`${provider} answered HTTP ${status}: ${providerMessage(body)}`, status);
}

/**
 * The human part of an error body: OpenAI `{error:{message}}`, ElevenLabs `{detail:{message}}` or
 * FastAPI `{detail:[{msg}]}`, Deepgram `{err_msg}`; otherwise the start of the raw text.
 */
export function providerMessage(body: string): string {
  let parsed: any;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body.trim().slice(0, 300) || "(empty body)";
  }
  const candidates = [
    parsed?.error?.message,
    typeof parsed?.error === "string" ? parsed.error : undefined,
    parsed?.detail?.message,
    typeof parsed?.detail === "string" ? parsed.detail : undefined,
    Array.isArray(parsed?.detail) ? parsed.detail.map((d: any) => [d?.loc?.join?.("."), d?.msg].filter(Boolean).join(": ")).join("; ") : undefined,
    parsed?.err_msg,
    parsed?.message,
  ];
  const message = candidates.find((c) => typeof c === "string" && c.trim());
  return (message ?? body).trim().slice(0, 300);
}

export function isAbort(error: unknown, signal?: AbortSignal): boolean {
  return Boolean(signal?.aborted) || (error as Error)?.name === "AbortError";
}

/**
 * Opens a streaming request under the URL rules with a deadline for the response headers only:
 * once they arrive the deadline is cleared, so a long answer read at playback pace is not cut off.
 * Resolves null when the caller's signal aborted it; throws SpeechProviderError for anything else,
 * including a non-2xx answer (with the provider's message).
 */
export async function openStreamingRequest(
  url: string,
  request: { method: "GET" | "POST"; headers: Record<string, string>; body?: string },
  policy: OutboundPolicy,
  options: { connectTimeoutMs: number; signal?: AbortSignal; provider: string },
): Promise<Response | null> {
  const controller = new AbortController();
  const timedOut = new AbortController();
  const timer = setTimeout(() => {
    timedOut.abort();
    controller.abort(new DOMException("no response headers in time", "TimeoutError"));
  }, options.connectTimeoutMs);
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  let response: Response;
  try {
    response = await openOutbound(url, { ...request, signal: controller.signal }, policy, timedOut.signal, options.connectTimeoutMs);
  } catch (error) {
    options.signal?.removeEventListener("abort", onAbort);
    if (options.signal?.aborted) return null;
    throw speechErrorFrom(error, options.provider);
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok) {
    options.signal?.removeEventListener("abort", onAbort);
    const body = await Promise.race([response.text().catch(() => ""), Bun.sleep(5_000).then(() => "(no error body within 5 s)")]);
    throw speechErrorFromStatus(options.provider, response.status, body);
  }
  // The caller's abort stays wired to the request so it also tears down the body.
  return response;
}
