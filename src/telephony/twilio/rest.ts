// Twilio's REST API, the parts Parley uses: calls (create, update) and phone numbers (search, buy,
// configure, release). Form-encoded requests with Basic auth; errors carry Twilio's code and message.
import { OutboundFailed, OutboundRefused, OutboundTimeout, sendOutbound, type OutboundPolicy } from "../../net/outbound.ts";
import type { TwilioCredentials } from "./settings.ts";

const TIMEOUT_MS = 15_000;
const MAX_RESPONSE_BYTES = 1024 * 1024;

/** Twilio said no (or could not be reached: status 0). */
export class TwilioError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | null,
    message: string,
  ) {
    super(message);
  }
}

export interface TwilioCallResource {
  sid: string;
  status: string;
}

export interface TwilioNumberResource {
  sid: string;
  phone_number: string;
}

export interface TwilioAvailableNumber {
  phone_number: string;
  locality?: string | null;
  region?: string | null;
  iso_country?: string | null;
}

export type Form = Record<string, string | string[] | undefined>;

export class TwilioRest {
  constructor(
    private readonly baseUrl: string,
    private readonly credentials: TwilioCredentials,
    private readonly policy: OutboundPolicy,
  ) {}

  private get account(): string {
    return `${this.baseUrl}/2010-04-01/Accounts/${this.credentials.accountSid}`;
  }

  createCall(form: Form): Promise<TwilioCallResource> {
    return this.request("POST", "/Calls.json", form);
  }

  updateCall(sid: string, form: Form): Promise<TwilioCallResource> {
    return this.request("POST", `/Calls/${encodeURIComponent(sid)}.json`, form);
  }

  async availableNumbers(country: string, query: { areaCode?: string; contains?: string; limit: number }): Promise<TwilioAvailableNumber[]> {
    const search = new URLSearchParams({ PageSize: String(query.limit) });
    if (query.areaCode) search.set("AreaCode", query.areaCode);
    if (query.contains) search.set("Contains", query.contains);
    const page = await this.request<{ available_phone_numbers?: TwilioAvailableNumber[] }>("GET", `/AvailablePhoneNumbers/${country}/Local.json?${search}`);
    return page.available_phone_numbers ?? [];
  }

  /** The account's own number, or null when it has no such number. */
  async ownedNumber(number: string): Promise<TwilioNumberResource | null> {
    const page = await this.request<{ incoming_phone_numbers?: TwilioNumberResource[] }>("GET", `/IncomingPhoneNumbers.json?${new URLSearchParams({ PhoneNumber: number })}`);
    return page.incoming_phone_numbers?.find((found) => found.phone_number === number) ?? null;
  }

  buyNumber(form: Form): Promise<TwilioNumberResource> {
    return this.request("POST", "/IncomingPhoneNumbers.json", form);
  }

  updateNumber(sid: string, form: Form): Promise<TwilioNumberResource> {
    return this.request("POST", `/IncomingPhoneNumbers/${encodeURIComponent(sid)}.json`, form);
  }

  async releaseNumber(sid: string): Promise<void> {
    await this.request("DELETE", `/IncomingPhoneNumbers/${encodeURIComponent(sid)}.json`);
  }

  private async request<T>(method: "GET" | "POST" | "DELETE", path: string, form?: Form): Promise<T> {
    const headers: Record<string, string> = {
      authorization: `Basic ${Buffer.from(`${this.credentials.accountSid}:${this.credentials.authToken}`).toString("base64")}`,
      accept: "application/json",
    };
    let body: string | undefined;
    if (form) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(form)) {
        if (value === undefined) continue;
        for (const one of Array.isArray(value) ? value : [value]) params.append(name, one);
      }
      body = params.toString();
      headers["content-type"] = "application/x-www-form-urlencoded";
    }
    let response;
    try {
      response = await sendOutbound(this.account + path, { method, headers, body, timeoutMs: TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES }, this.policy);
    } catch (error) {
      if (error instanceof OutboundRefused || error instanceof OutboundFailed || error instanceof OutboundTimeout) throw new TwilioError(0, null, `Twilio could not be reached: ${error.message}`);
      throw error;
    }
    const text = new TextDecoder().decode(response.body);
    let json: Record<string, unknown> = {};
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      if (response.status < 300) throw new TwilioError(response.status, null, `Twilio answered ${response.status} with a body that is not JSON`);
    }
    if (response.status >= 300) {
      const code = typeof json.code === "number" ? json.code : null;
      const message = typeof json.message === "string" ? json.message : `HTTP ${response.status}`;
      throw new TwilioError(response.status, code, code ? `${message} (Twilio error ${code})` : message);
    }
    return json as T;
  }
}
