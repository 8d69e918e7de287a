// The transaction layer (RFC 3261 §17) under the calls: requests we send are retransmitted over UDP
// until answered and time out as 408; requests we receive are matched by branch, so a retransmitted
// request gets our last response again instead of a second call. ACKs for failed INVITEs are sent
// and absorbed here; everything dialog-level goes up to the carrier.
import { randomBytes } from "node:crypto";
import { parseVia } from "./address.ts";
import { parseCSeq, SipHeaders, type SipMessage, type SipRequest, type SipResponse } from "./message.ts";
import { responseTo } from "./responses.ts";
import type { SipTarget, SipTransport, TransportEvents, TransportName } from "./transport.ts";

/** RFC 3261 timer T1 (round-trip estimate) and T2 (retransmission cap). */
const T1_MS = 500;
const T2_MS = 4_000;
/** How long a finished transaction is kept to absorb retransmissions (Timer D/J, 64·T1). */
const LINGER_MS = 64 * T1_MS;

export const newToken = (bytes = 8) => randomBytes(bytes).toString("hex");

export interface Incoming {
  request: SipRequest;
  source: SipTarget;
  respond(status: number, options?: Parameters<typeof responseTo>[2]): SipResponse;
  /** For an INVITE: what to do when a CANCEL for it arrives before the final answer. */
  onCancel(handler: () => void): void;
}

export interface SendOptions {
  onProvisional?(response: SipResponse): void;
  /** A 2xx to an INVITE arriving again after the first: the dialog has to ACK it again. */
  onRetransmitted2xx?(response: SipResponse): void;
}

interface ClientTransaction {
  request: SipRequest;
  target: SipTarget;
  options: SendOptions;
  final: SipResponse | null;
  provisional: boolean;
  resolve(response: SipResponse): void;
  timers: ReturnType<typeof setTimeout>[];
}

interface ServerTransaction {
  request: SipRequest;
  source: SipTarget;
  last: SipResponse | null;
  cancel: (() => void) | null;
}

export interface UserAgentIdentity {
  /** The host (and port) put in Via and Contact: where the far end reaches us. */
  advertised: string;
  transport: TransportName;
}

const branchOf = (message: SipMessage) => {
  const via = parseVia(message.headers.all("via")[0] ?? "");
  return via.params.branch ?? `${message.headers.get("call-id")}|${message.headers.get("cseq")}`;
};

export class SipUserAgent implements TransportEvents {
  private transport: SipTransport | null = null;
  private readonly clients = new Map<string, ClientTransaction>();
  private readonly servers = new Map<string, ServerTransaction>();
  /** Messages refused as unparseable, for stats and tests. */
  malformedCount = 0;

  constructor(
    private readonly identity: UserAgentIdentity,
    private readonly handler: (incoming: Incoming) => void,
    private readonly log: (message: string) => void = () => {},
  ) {}

  attach(transport: SipTransport): void {
    this.transport = transport;
  }

  get contactHost(): string {
    return this.identity.advertised;
  }

  /** Where the far end reaches us, once the port is bound. */
  advertise(hostPort: string): void {
    this.identity.advertised = hostPort;
  }

  /** A request outside any dialog state we keep: Via with a fresh branch, Max-Forwards, User-Agent. */
  createRequest(method: string, uri: string, headers: [string, string][], body = ""): SipRequest {
    const request: SipRequest = { type: "request", method, uri, headers: new SipHeaders(), body };
    request.headers.append("via", this.via());
    request.headers.append("max-forwards", "70");
    for (const [name, value] of headers) request.headers.append(name, value);
    request.headers.append("user-agent", "Parley");
    return request;
  }

  /** The same request sent again as a new transaction (after a challenge): new branch, next CSeq. */
  retry(request: SipRequest, extra: [string, string][]): SipRequest {
    const headers = new SipHeaders();
    for (const [name, value] of request.headers.list()) {
      if (name === "via") continue;
      if (name === "cseq") {
        const cseq = parseCSeq(value);
        headers.append(name, `${cseq.seq + 1} ${cseq.method}`);
      } else if (!extra.some(([extraName]) => extraName === name)) headers.append(name, value);
    }
    for (const [name, value] of extra) headers.append(name, value);
    const retried: SipRequest = { ...request, headers: new SipHeaders([["via", this.via()], ...headers.list()]) };
    return retried;
  }

  /** Sends a request as a client transaction; resolves with the final response (a 408 of our own on timeout). */
  send(request: SipRequest, target: SipTarget, options: SendOptions = {}): Promise<SipResponse> {
    // A CANCEL shares its INVITE's branch (§9.1): the method tells the two transactions apart.
    const branch = `${branchOf(request)}|${request.method}`;
    return new Promise((resolve) => {
      const tx: ClientTransaction = { request, target, options, final: null, provisional: false, resolve, timers: [] };
      this.clients.set(branch, tx);
      this.transmit(request, target);
      const invite = request.method === "INVITE";
      if (target.transport === "udp") {
        // Timers A/E: doubling retransmissions (capped at T2 for non-INVITE) until an answer stops them.
        const again = (interval: number) => {
          tx.timers.push(setTimeout(() => {
            if (tx.final || (invite && tx.provisional)) return;
            this.transmit(request, target);
            again(invite ? interval * 2 : Math.min(interval * 2, T2_MS));
          }, interval));
        };
        again(T1_MS);
      }
      // Timers B/F: no final answer in 64·T1 is a timeout (an INVITE that rings is left to ring).
      tx.timers.push(setTimeout(() => {
        if (tx.final || (invite && tx.provisional)) return;
        this.finishClient(branch, tx, responseTo(request, 408, { reason: "Request Timeout (no answer from the far end)" }));
      }, LINGER_MS));
    });
  }

  /** Sends without a transaction: ACK for a 2xx, and responses retransmitted by a dialog. */
  sendStateless(message: SipMessage, target: SipTarget): void {
    this.transmit(message, target);
  }

  close(): void {
    for (const tx of this.clients.values()) for (const timer of tx.timers) clearTimeout(timer);
    this.clients.clear();
    this.servers.clear();
    this.transport?.close();
  }

  message(message: SipMessage, source: SipTarget): void {
    if (message.type === "response") this.response(message);
    else this.request(message, source);
  }

  malformed(reason: string, source: SipTarget): void {
    this.malformedCount++;
    this.log(`refused a malformed SIP message from ${source.address}:${source.port}: ${reason}`);
  }

  private via(): string {
    return `SIP/2.0/${this.identity.transport.toUpperCase()} ${this.identity.advertised};branch=z9hG4bK${newToken()};rport`;
  }

  private transmit(message: SipMessage, target: SipTarget): void {
    this.transport?.send(message, target);
  }

  private response(response: SipResponse): void {
    const branch = `${branchOf(response)}|${parseCSeq(response.headers.get("cseq")!).method}`;
    const tx = this.clients.get(branch);
    if (!tx) return;
    if (response.status < 200) {
      if (tx.final) return;
      tx.provisional = true;
      tx.options.onProvisional?.(response);
      return;
    }
    if (tx.final) {
      // A retransmitted final answer: ours was lost. Failed INVITEs are ACKed again here, 2xx by the dialog.
      if (tx.request.method === "INVITE") {
        if (response.status >= 300) this.transmit(this.ackFor(tx.request, response), tx.target);
        else tx.options.onRetransmitted2xx?.(response);
      }
      return;
    }
    if (tx.request.method === "INVITE" && response.status >= 300) this.transmit(this.ackFor(tx.request, response), tx.target);
    this.finishClient(branch, tx, response);
  }

  private finishClient(branch: string, tx: ClientTransaction, final: SipResponse): void {
    tx.final = final;
    for (const timer of tx.timers) clearTimeout(timer);
    const linger = setTimeout(() => this.clients.delete(branch), LINGER_MS);
    linger.unref?.();
    tx.timers = [linger];
    tx.resolve(final);
  }

  /** The ACK for a non-2xx answer to an INVITE (§17.1.1.3): same branch, the answer's To tag. */
  private ackFor(invite: SipRequest, response: SipResponse): SipRequest {
    const headers = new SipHeaders([
      ["via", invite.headers.all("via")[0]],
      ["max-forwards", "70"],
      ["from", invite.headers.get("from")!],
      ["to", response.headers.get("to")!],
      ["call-id", invite.headers.get("call-id")!],
      ["cseq", `${parseCSeq(invite.headers.get("cseq")!).seq} ACK`],
    ]);
    for (const route of invite.headers.all("route")) headers.append("route", route);
    return { type: "request", method: "ACK", uri: invite.uri, headers, body: "" };
  }

  private request(request: SipRequest, source: SipTarget): void {
    const branch = branchOf(request);
    if (request.method === "ACK") {
      const invite = this.servers.get(`${branch}|INVITE`);
      // The ACK of a failed INVITE ends its transaction; an ACK for a 2xx belongs to the dialog.
      if (invite && invite.last && invite.last.status >= 300) return;
      this.handler(this.incoming(request, source, null));
      return;
    }
    if (request.method === "CANCEL") {
      const invite = this.servers.get(`${branch}|INVITE`);
      const cancel = this.incoming(request, source, null);
      if (!invite) {
        cancel.respond(481);
        return;
      }
      cancel.respond(200);
      if (!invite.last || invite.last.status < 200) invite.cancel?.();
      return;
    }
    const key = `${branch}|${request.method}`;
    const known = this.servers.get(key);
    if (known) {
      // A retransmission: answered again with what we said last, never handled twice.
      if (known.last) this.transmit(known.last, known.source);
      return;
    }
    const tx: ServerTransaction = { request, source, last: null, cancel: null };
    this.servers.set(key, tx);
    setTimeout(() => this.servers.delete(key), LINGER_MS * 4).unref?.();
    this.handler(this.incoming(request, source, tx));
  }

  private incoming(request: SipRequest, source: SipTarget, tx: ServerTransaction | null): Incoming {
    return {
      request,
      source,
      respond: (status, options) => {
        const response = responseTo(request, status, options);
        if (tx) tx.last = response;
        this.transmit(response, source);
        return response;
      },
      onCancel: (handler) => {
        if (tx) tx.cancel = handler;
      },
    };
  }
}
