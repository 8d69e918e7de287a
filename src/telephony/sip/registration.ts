// REGISTER with the trunk (RFC 3261 §10) so it knows where to send our numbers' calls: digest
// answered once per challenge, refreshed before it expires, retried with backoff when refused, and
// removed (Expires: 0) when the connection goes. Trunks that authenticate by IP skip all this.
import { digestAuthorization, parseChallenge, refusesCredentials } from "./digest.ts";
import { parseNameAddr } from "./address.ts";
import type { SipRequest, SipResponse } from "./message.ts";
import type { SipTarget } from "./transport.ts";
import { newToken, type SipUserAgent } from "./user-agent.ts";

export interface RegistrationSettings {
  registrar: SipTarget;
  domain: string;
  username: string;
  password: string;
  expiresSeconds: number;
}

export type RegistrationState = { state: "registering" | "registered" | "failed"; detail: string | null };

const RETRY_MIN_MS = 5_000;
const RETRY_MAX_MS = 300_000;

export class Registration {
  private readonly callId = `${newToken(12)}@parley`;
  private readonly tag = newToken();
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private stopped = false;
  current: RegistrationState = { state: "registering", detail: null };

  constructor(
    private readonly ua: SipUserAgent,
    private readonly settings: RegistrationSettings,
    private readonly log: (message: string) => void,
  ) {}

  start(): void {
    void this.register(this.settings.expiresSeconds);
  }

  /** Unregisters (best effort) and stops refreshing. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.current.state === "registered") void this.register(0);
  }

  private request(expires: number, authorization: [string, string] | null): SipRequest {
    const aor = `sip:${this.settings.username}@${this.settings.domain}`;
    return this.ua.createRequest("REGISTER", `sip:${this.settings.domain}`, [
      ["from", `<${aor}>;tag=${this.tag}`],
      ["to", `<${aor}>`],
      ["call-id", this.callId],
      ["cseq", `${++this.seq} REGISTER`],
      ["contact", `<sip:${this.settings.username}@${this.ua.contactHost}>`],
      ["expires", String(expires)],
      ...(authorization ? [authorization] : []),
    ]);
  }

  private async register(expires: number): Promise<void> {
    let request = this.request(expires, null);
    let response = await this.ua.send(request, this.settings.registrar);
    if (response.status === 401 || response.status === 407) {
      const proxy = response.status === 407;
      const challenge = parseChallenge(response.headers.get(proxy ? "proxy-authenticate" : "www-authenticate") ?? "");
      if (!challenge) return this.failed(`the registrar's challenge cannot be answered (${response.status})`);
      const authorization = digestAuthorization(challenge, { method: "REGISTER", uri: request.uri, username: this.settings.username, password: this.settings.password });
      request = this.request(expires, [proxy ? "proxy-authorization" : "authorization", authorization]);
      response = await this.ua.send(request, this.settings.registrar);
      if (refusesCredentials(response.status)) return this.failed(`the registrar refused the credentials of ${this.settings.username} (${response.status} ${response.reason}): check the password`);
    }
    if (expires === 0 || this.stopped) return;
    if (response.status >= 300) return this.failed(`${response.status} ${response.reason}`);
    this.failures = 0;
    const granted = grantedSeconds(response, this.ua.contactHost) ?? this.settings.expiresSeconds;
    this.current = { state: "registered", detail: `until ${new Date(Date.now() + granted * 1000).toISOString()}` };
    this.log(`registered with ${this.settings.registrar.address}:${this.settings.registrar.port} for ${granted} s`);
    // Refreshed well before it lapses, as phones do.
    this.schedule(Math.max(granted * 1000 * 0.8, 1_000));
  }

  private failed(detail: string): void {
    if (this.stopped) return;
    this.current = { state: "failed", detail };
    this.log(`registration failed: ${detail}`);
    this.failures++;
    this.schedule(Math.min(RETRY_MIN_MS * 2 ** (this.failures - 1), RETRY_MAX_MS));
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.register(this.settings.expiresSeconds), ms);
    this.timer.unref?.();
  }
}

/** The expiry the registrar granted our binding: its Contact's expires, else the Expires header. */
function grantedSeconds(response: SipResponse, contactHost: string): number | null {
  for (const contact of response.headers.all("contact")) {
    const parsed = parseNameAddr(contact);
    if (parsed.uri.includes(contactHost) && parsed.params.expires) return Number(parsed.params.expires);
  }
  const expires = response.headers.get("expires");
  return expires && /^\d+$/.test(expires) ? Number(expires) : null;
}
