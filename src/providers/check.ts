import { sendOutbound } from "../net/outbound.ts";
import type { ProviderConnection } from "./connection.ts";
import { asProviderError } from "./openai/chat.ts";

export interface CheckResult {
  ok: boolean;
  latency_ms: number;
  /** What the provider said that proves the connection works (e.g. some model names). */
  detail: string;
  /** The exact failure: status code and message, time-out, refusal or network error. */
  error: string | null;
}

/** One real, minimal, read-only request per kind: it proves the URL, the key and the network path. */
export async function checkConnection(connection: ProviderConnection): Promise<CheckResult> {
  const request = probeFor(connection);
  const started = performance.now();
  try {
    const response = await sendOutbound(request.url, { method: "GET", headers: request.headers, timeoutMs: 10_000, maxResponseBytes: 1024 * 1024 }, connection.policy);
    const text = new TextDecoder().decode(response.body);
    const latency = response.durationMs;
    if (response.status < 200 || response.status >= 300) {
      return { ok: false, latency_ms: latency, detail: "", error: `GET ${request.path} answered HTTP ${response.status}: ${text.slice(0, 300)}` };
    }
    return { ok: true, latency_ms: latency, detail: request.describe(text), error: null };
  } catch (error) {
    return { ok: false, latency_ms: Math.round(performance.now() - started), detail: "", error: asProviderError(error).message };
  }
}

function probeFor(connection: ProviderConnection) {
  const key = connection.apiKey;
  switch (connection.kind) {
    case "openai-compatible":
      return {
        path: "/models",
        url: `${connection.baseUrl}/models`,
        headers: key ? { authorization: `Bearer ${key}` } : ({} as Record<string, string>),
        describe: (text: string) => {
          const ids = (safeJson(text)?.data as { id: string }[] | undefined)?.map((m) => m.id) ?? [];
          return ids.length ? `${ids.length} model(s): ${ids.slice(0, 10).join(", ")}` : "reachable";
        },
      };
    case "deepgram":
      return {
        path: "/v1/projects",
        url: `${connection.baseUrl}/v1/projects`,
        headers: { authorization: `Token ${key ?? ""}` },
        describe: (text: string) => `${(safeJson(text)?.projects as unknown[] | undefined)?.length ?? 0} project(s)`,
      };
    case "elevenlabs":
      return {
        path: "/v1/user",
        url: `${connection.baseUrl}/v1/user`,
        headers: { "xi-api-key": key ?? "" },
        describe: (text: string) => {
          const sub = safeJson(text)?.subscription as { tier?: string } | undefined;
          return sub?.tier ? `subscription ${sub.tier}` : "reachable";
        },
      };
  }
}

function safeJson(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
