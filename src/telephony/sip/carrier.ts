// A SIP trunk made live: one user agent on the connection's port, registered with the trunk when it
// asks for that, kept alive with OPTIONS, dialling out through it and answering its INVITEs.
import { lookup } from "node:dns/promises";
import type { MediaClock } from "../../voice/media/media-clock.ts";
import type { Carrier, CarrierStatus, DialRequest, InboundCalls, NumberInventory } from "../types.ts";
import { invalid } from "../../http/errors.ts";
import { answerInvite } from "./answer.ts";
import { ALLOW, type SipCallContext, type SipCallLeg } from "./call-leg.ts";
import { SipOutboundLeg } from "./dial.ts";
import { Dialog } from "./dialog.ts";
import { parseNameAddr } from "./address.ts";
import { Registration } from "./registration.ts";
import { isIp, type SipSettings } from "./settings.ts";
import { SipTransport, type SipTarget } from "./transport.ts";
import { newToken, SipUserAgent, type Incoming } from "./user-agent.ts";

export interface SipCarrierEnv {
  workspaceId: string;
  connectionId: string;
  credentials: { username: string; password: string } | null;
  inbound: InboundCalls;
  clock: MediaClock;
  log: (message: string) => void;
}

const BIND_RETRY_MS = 2_000;

/** A trunk sells no numbers: they are the customer's DIDs, brought in with import. */
const trunkNumbers: NumberInventory = {
  async search() {
    throw invalid("carrier_id", "a SIP trunk has no numbers for sale: import the DIDs your trunk routes to you (POST /v1/phone-numbers/import)");
  },
  async buy() {
    throw invalid("carrier_id", "a SIP trunk has no numbers for sale: import the DIDs your trunk routes to you (POST /v1/phone-numbers/import)");
  },
  // The PBX routes the DID to us; nothing on the trunk can confirm it, so it is taken as said.
  async adopt() {},
  async release() {},
};

export class SipCarrier implements Carrier {
  readonly kind = "sip";
  readonly numbers = trunkNumbers;
  private readonly ua: SipUserAgent;
  private readonly calls = new Map<string, SipCallLeg>();
  private readonly ready: Promise<void>;
  private trunk: SipTarget;
  private allowed = new Set<string>();
  private registration: Registration | null = null;
  private keepalive: ReturnType<typeof setInterval> | null = null;
  private state: CarrierStatus = { state: "starting", detail: null };
  /** The port bound, which differs from the setting when that is 0. */
  private boundPort: number | null = null;
  private closed = false;

  constructor(
    private readonly settings: SipSettings,
    private readonly env: SipCarrierEnv,
  ) {
    this.trunk = { transport: settings.transport, address: settings.trunk.host, port: settings.trunk.port };
    this.ua = new SipUserAgent({ advertised: "", transport: settings.transport }, (incoming) => this.request(incoming), env.log);
    this.ready = this.start();
    this.ready.catch(() => {});
  }

  get connectionId(): string {
    return this.env.connectionId;
  }

  dial(request: DialRequest): SipOutboundLeg {
    return new SipOutboundLeg(this.callContext(), { trunk: this.trunk, credentials: this.env.credentials, ringTimeoutMs: this.settings.ringTimeoutSeconds * 1000, stripPlus: this.settings.stripPlus }, request);
  }

  checkDialOptions(options: Record<string, unknown>): { field: string; message: string } | null {
    const [key] = Object.keys(options);
    return key ? { field: `simulation.${key}`, message: "a call over a SIP trunk reaches a real phone: it takes no simulation settings" } : null;
  }

  /** A real voice is on the line: only the agent's recogniser can hear it. */
  scriptedRecognition(): boolean {
    return false;
  }

  status(): CarrierStatus {
    const current = this.state.state === "listening" && this.registration ? this.registration.current : this.state;
    return this.boundPort === null ? current : { ...current, listenPort: this.boundPort };
  }

  /** Live calls are left with BYE, the registration removed, the port freed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.keepalive) clearInterval(this.keepalive);
    for (const leg of [...this.calls.values()]) leg.hangup();
    this.registration?.stop();
    // The BYEs and the unregister go out before the socket closes.
    setTimeout(() => this.ua.close(), 50);
  }

  /** Resolves the trunk, binds the port, then registers and starts the keep-alive. */
  private async start(): Promise<void> {
    try {
      const address = isIp(this.settings.trunk.host) ? this.settings.trunk.host : (await lookup(this.settings.trunk.host, 4)).address;
      this.trunk = { ...this.trunk, address };
      this.allowed = new Set([address, ...this.settings.allowedSources]);
      const transport = await this.bind();
      if (this.closed) {
        transport.close();
        return;
      }
      this.ua.attach(transport);
      this.boundPort = transport.port;
      this.ua.advertise(`${this.settings.publicAddress}:${transport.port}`);
      this.state = { state: "listening", detail: `${this.settings.transport} port ${transport.port}` };
      this.env.log(`SIP trunk ${this.env.connectionId} listening on ${this.settings.listenHost}:${transport.port} (${this.settings.transport}), trunk ${address}:${this.trunk.port}`);
    } catch (error) {
      this.state = { state: "failed", detail: `cannot start: ${(error as Error).message}` };
      this.env.log(`SIP trunk ${this.env.connectionId}: ${this.state.detail}`);
      throw new Error(this.state.detail!);
    }
    if (this.settings.register && this.env.credentials) {
      this.registration = new Registration(this.ua, { registrar: this.trunk, domain: this.settings.domain, ...this.env.credentials, expiresSeconds: this.settings.registerExpires }, this.env.log);
      this.registration.start();
    }
    if (this.settings.keepaliveSeconds > 0) {
      this.keepalive = setInterval(() => void this.ping(), this.settings.keepaliveSeconds * 1000);
      this.keepalive.unref?.();
    }
  }

  /** The connection's port; a carrier being replaced frees it a moment later, so a taken port is tried again briefly. */
  private async bind(): Promise<SipTransport> {
    const deadline = Date.now() + BIND_RETRY_MS;
    for (;;) {
      try {
        return await SipTransport.open({ host: this.settings.listenHost, port: this.settings.listenPort, tcp: this.settings.transport === "tcp" }, this.ua);
      } catch (error) {
        if (this.closed || this.settings.listenPort === 0 || Date.now() > deadline) throw error;
        await Bun.sleep(50);
      }
    }
  }

  /** OPTIONS to the trunk: keeps NAT bindings open and tells the operator whether it answers. */
  private async ping(): Promise<void> {
    const aor = `sip:parley@${this.settings.domain}`;
    const response = await this.ua.send(
      this.ua.createRequest("OPTIONS", `sip:${this.settings.domain}`, [["from", `<${aor}>;tag=${newToken()}`], ["to", `<${aor}>`], ["call-id", `${newToken(12)}@parley`], ["cseq", "1 OPTIONS"]]),
      this.trunk,
    );
    if (this.closed) return;
    // Any answer, even 404 or 405, means the trunk is there.
    this.state = response.status === 408 ? { state: "unreachable", detail: "the trunk did not answer OPTIONS" } : { state: "listening", detail: this.state.detail };
  }

  private callContext(): SipCallContext {
    return {
      ua: this.ua,
      clock: this.env.clock,
      ready: this.ready,
      media: { bindHost: this.settings.listenHost, advertise: this.settings.publicAddress, range: this.settings.rtpPorts, codecs: this.settings.codecs },
      domain: this.settings.domain,
      calls: this.calls,
    };
  }

  private request(incoming: Incoming): void {
    const { request } = incoming;
    const toTag = parseNameAddr(request.headers.get("to")!).params.tag;
    if (toTag) {
      const leg = this.calls.get(Dialog.keyOf(request.headers.get("call-id")!, toTag));
      if (leg) leg.handle(incoming);
      else if (request.method !== "ACK") incoming.respond(481);
      return;
    }
    switch (request.method) {
      case "INVITE":
        if (!this.allowed.has(incoming.source.address)) {
          // An IP-authenticated trunk: strangers on the port do not get to call the agents.
          incoming.respond(403, { reason: "Forbidden (not from the trunk)", toTag: newToken() });
          return;
        }
        if (this.closed) {
          incoming.respond(503, { toTag: newToken() });
          return;
        }
        void answerInvite(this.callContext(), incoming, {
          check: (to, from) => this.env.inbound.check(this.env.workspaceId, { kind: "sip", connectionId: this.env.connectionId, to, from, carrierOptions: null }),
          answer: (to, from, makeLeg) => this.env.inbound.answer(this.env.workspaceId, { kind: "sip", connectionId: this.env.connectionId, to, from, carrierOptions: null }, makeLeg),
          log: this.env.log,
        }).catch((error) => {
          this.env.log(`SIP INVITE failed: ${(error as Error).message}`);
          incoming.respond(500, { toTag: newToken() });
        });
        return;
      case "OPTIONS":
        incoming.respond(200, { toTag: newToken(), headers: [["allow", ALLOW], ["accept", "application/sdp"]] });
        return;
      case "ACK":
        return;
      default:
        incoming.respond(405, { toTag: newToken(), headers: [["allow", ALLOW]] });
    }
  }
}
