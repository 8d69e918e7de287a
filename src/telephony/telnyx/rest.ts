// Telnyx's API v2, the parts Parley uses: Call Control commands and numbers. JSON with a Bearer API
// key; errors carry Telnyx's code and detail.
import { OutboundFailed, OutboundRefused, OutboundTimeout, sendOutbound, type OutboundPolicy } from "../../net/outbound.ts";

const TIMEOUT_MS = 15_000;
const MAX_RESPONSE_BYTES = 1024 * 1024;

export class TelnyxError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    message: string,
  ) {
    super(message);
  }
}

export class TelnyxRest {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly policy: OutboundPolicy,
  ) {}

  /** A request under /v2; resolves to the response's `data`. */
  async request<T = any>(method: "GET" | "POST" | "DELETE" | "PATCH", path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    let response;
    try {
      response = await sendOutbound(`${this.baseUrl}/v2${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), timeoutMs: TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES }, this.policy);
    } catch (error) {
      if (error instanceof OutboundRefused || error instanceof OutboundFailed || error instanceof OutboundTimeout) throw new TelnyxError(0, null, `Telnyx could not be reached: ${error.message}`);
      throw error;
    }
    const text = new TextDecoder().decode(response.body);
    let json: any = {};
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      if (response.status < 300) throw new TelnyxError(response.status, null, `Telnyx answered ${response.status} with a body that is not JSON`);
    }
    if (response.status >= 300) {
      const first = Array.isArray(json.errors) ? json.errors[0] : null;
      const code = first?.code ? String(first.code) : null;
      const message = first ? [first.title, first.detail].filter(Boolean).join(": ") : `HTTP ${response.status}`;
      throw new TelnyxError(response.status, code, code ? `${message} (Telnyx error ${code})` : message);
    }
    return json.data as T;
  }
}
