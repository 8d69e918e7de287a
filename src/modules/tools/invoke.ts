import type { AppContext } from "../../core/context.ts";
import { VERSION } from "../../core/version.ts";
import { newId } from "../../lib/ids.ts";
import { unseal } from "../../lib/sealed.ts";
import { OutboundRefused, OutboundTimeout, sendOutbound } from "../../net/outbound.ts";
import { signWebhook } from "../../webhooks/signing.ts";
import { toolConfigOf, type ToolInvocation } from "./models.ts";
import type { ToolRow } from "./repo.ts";

const RESPONSE_LIMIT_BYTES = 64 * 1024;

/**
 * Calls a webhook tool exactly as a live call does: a signed JSON POST with the arguments, a
 * time-out, the URL rules of webhooks, and the response mapped through `response_path`.
 */
export async function invokeTool(
  ctx: AppContext,
  tool: ToolRow,
  args: Record<string, unknown>,
  context: { agentId: string; callId: string | null },
): Promise<ToolInvocation> {
  const config = toolConfigOf(tool);
  const callId = newId("tcl");
  const body = { tool: config.name, call_id: callId, arguments: args, agent_id: context.agentId, conversation_id: context.callId, timestamp: new Date(ctx.clock.now()).toISOString() };
  const raw = JSON.stringify(body);
  const custom = tool.headers ? (JSON.parse(unseal(ctx.keys.encryption, tool.headers)) as Record<string, string>) : {};
  const signature = signWebhook({ eventId: callId, body: raw, timestampSeconds: Math.floor(ctx.clock.now() / 1000), secrets: [unseal(ctx.keys.encryption, tool.secret)], brandName: ctx.brand.name });
  const headers = { ...custom, "content-type": "application/json", "user-agent": `${ctx.brand.name}-Tools/${VERSION}`, ...signature };
  const shownHeaders = { ...headers, ...Object.fromEntries(Object.keys(custom).map((name) => [name, "[redacted]"])) };
  const started = performance.now();
  const finish = (response: ToolInvocation["response"], result: unknown, error: string | null): ToolInvocation => ({
    call_id: callId,
    request: { url: config.url, method: "POST", headers: shownHeaders, body },
    response,
    result,
    error,
    latency_ms: Math.round(performance.now() - started),
  });
  try {
    const response = await sendOutbound(
      config.url,
      { method: "POST", headers, body: raw, timeoutMs: config.timeout_ms, maxResponseBytes: RESPONSE_LIMIT_BYTES },
      { allowPrivate: ctx.config.allowPrivateUrls },
    );
    const text = new TextDecoder().decode(response.body);
    const parsed = parseBody(text);
    if (response.status < 200 || response.status >= 300) {
      return finish({ status: response.status, body: parsed }, { error: `the tool answered HTTP ${response.status}` }, `HTTP ${response.status}`);
    }
    const result = config.response_path ? pick(parsed, config.response_path) : parsed;
    if (result === undefined) return finish({ status: response.status, body: parsed }, { error: `no ${config.response_path} in the response` }, `response_path ${config.response_path} not found`);
    return finish({ status: response.status, body: parsed }, result, null);
  } catch (error) {
    const reason = error instanceof OutboundTimeout ? `timeout after ${config.timeout_ms} ms` : error instanceof OutboundRefused ? `refused: ${error.message}` : `connection error: ${(error as Error).message}`;
    return finish(null, { error: reason }, reason);
  }
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `data.items.0.name` → value, or undefined when any step is missing. */
export function pick(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split(".").filter(Boolean)) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

