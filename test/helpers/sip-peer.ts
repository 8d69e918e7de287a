// A scripted SIP peer on loopback UDP for the protocol's corners baresip cannot be made to show
// (a trunk that challenges, a registrar, malformed or hostile messages): it sends exactly the text
// it is given and keeps every message it receives.
import { createHash, randomBytes } from "node:crypto";
import { parseMessage, type SipMessage, type SipRequest } from "../../src/telephony/sip/message.ts";

export interface Received {
  message: SipMessage;
  from: { address: string; port: number };
}

export class SipPeer {
  readonly received: Received[] = [];
  /** Messages our strict parser refuses (a 400 that echoes the malformed header it refuses). */
  readonly unparsed: string[] = [];
  private waiters: (() => void)[] = [];
  private constructor(
    private readonly socket: Bun.udp.Socket<"buffer">,
    readonly host: string,
  ) {}

  static async start(host = "127.0.0.1", onRequest?: (peer: SipPeer, request: SipRequest, from: Received["from"]) => void): Promise<SipPeer> {
    let peer: SipPeer | null = null;
    const socket = await Bun.udpSocket({
      hostname: host,
      port: 0,
      socket: {
        data: (_s, data, port, address) => {
          let message: SipMessage;
          try {
            message = parseMessage(data);
          } catch {
            peer!.unparsed.push(new TextDecoder().decode(data));
            for (const wake of peer!.waiters.splice(0)) wake();
            return;
          }
          peer!.received.push({ message, from: { address, port } });
          if (message.type === "request") onRequest?.(peer!, message, { address, port });
          for (const wake of peer!.waiters.splice(0)) wake();
        },
      },
    });
    peer = new SipPeer(socket, host);
    return peer;
  }

  get port(): number {
    return this.socket.port;
  }

  send(text: string, port: number, address = "127.0.0.1"): void {
    this.socket.send(text.replace(/\r?\n/g, "\r\n"), port, address);
  }

  sendRaw(bytes: Uint8Array | string, port: number, address = "127.0.0.1"): void {
    this.socket.send(bytes, port, address);
  }

  /** The next message (after `from`) that `match` accepts. */
  async next(match: (message: SipMessage) => boolean, timeoutMs = 5_000, from = 0): Promise<SipMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.slice(from).find((r) => match(r.message));
      if (found) return found.message;
      if (Date.now() > deadline) throw new Error(`no matching SIP message in ${timeoutMs} ms; got ${this.received.map((r) => (r.message.type === "request" ? r.message.method : r.message.status)).join(", ")}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  close(): void {
    this.socket.close();
  }
}

export const token = () => randomBytes(6).toString("hex");

/** A response to `request` as a trunk would write it. */
export function reply(request: SipRequest, status: number, reason: string, extra: string[] = [], body = "", toTag?: string): string {
  const to = request.headers.get("to")!;
  return [
    `SIP/2.0 ${status} ${reason}`,
    ...request.headers.all("via").map((via) => `Via: ${via}`),
    `From: ${request.headers.get("from")}`,
    `To: ${toTag && !to.includes("tag=") ? `${to};tag=${toTag}` : to}`,
    `Call-ID: ${request.headers.get("call-id")}`,
    `CSeq: ${request.headers.get("cseq")}`,
    ...extra,
    `Content-Length: ${Buffer.byteLength(body)}`,
    "",
    body,
  ].join("\r\n");
}

/** Checks an Authorization header the way a registrar does (RFC 2617, MD5, qop=auth or none), written out independently. */
export function digestValid(header: string, method: string, password: string): boolean {
  const p: Record<string, string> = {};
  for (const m of header.replace(/^Digest\s+/i, "").matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]+))/g)) p[m[1]] = m[2] ?? m[3];
  const md5 = (s: string) => createHash("md5").update(s).digest("hex");
  const ha1 = md5(`${p.username}:${p.realm}:${password}`);
  const ha2 = md5(`${method}:${p.uri}`);
  const expected = p.qop ? md5(`${ha1}:${p.nonce}:${p.nc}:${p.cnonce}:${p.qop}:${ha2}`) : md5(`${ha1}:${p.nonce}:${ha2}`);
  return expected === p.response;
}

/** An SDP offer as a phone writes one. */
export function sdpOffer(port: number, payloads: { pt: number; name: string }[], direction = "sendrecv"): string {
  return [
    "v=0",
    `o=peer 1 1 IN IP4 127.0.0.1`,
    "s=-",
    "c=IN IP4 127.0.0.1",
    "t=0 0",
    `m=audio ${port} RTP/AVP ${payloads.map((p) => p.pt).join(" ")}`,
    ...payloads.map((p) => `a=rtpmap:${p.pt} ${p.name}/8000`),
    `a=${direction}`,
    "",
  ].join("\r\n");
}
