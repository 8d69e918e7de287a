// How a benchmark caller reaches the agent: the simulated carrier's softphone (a WebSocket carrying
// 20 ms µ-law frames both ways), or a SIP call from a scripted trunk into Parley's SIP listener with
// RTP over loopback UDP. Either way the caller sends a frame every 20 ms and hears what arrives.
import { parseRtp, serializeRtp } from "../../../src/telephony/rtp/packet.ts";
import type { SipRequest } from "../../../src/telephony/sip/message.ts";
import { readAnswer } from "../../../src/telephony/sip/sdp.ts";
import { reply, sdpOffer, SipPeer, token } from "../../../test/helpers/sip-peer.ts";

export interface CallerLine {
  /** One 20 ms µ-law frame from the caller. */
  send(frame: Uint8Array): void;
  /** Set by the caller: each frame of the agent's audio, as it arrives. */
  onAudio: (frame: Uint8Array) => void;
  hangup(): Promise<void>;
}

/** Dials `to` on the simulated carrier's softphone; resolves once the agent answered. */
export async function softphoneLine(base: string, key: string, to: string): Promise<CallerLine> {
  const socket = new WebSocket(`${base.replace(/^http/, "ws")}/v1/telephony/simulated/softphone?to=${encodeURIComponent(to)}&encoding=pcmu`, {
    headers: { authorization: `Bearer ${key}` },
  } as unknown as string[]);
  socket.binaryType = "arraybuffer";
  const line: CallerLine = {
    send: (frame) => socket.readyState === WebSocket.OPEN && socket.send(frame),
    onAudio: () => {},
    async hangup() {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "hangup" }));
      socket.close();
    },
  };
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("message", (message) => {
      if (typeof message.data !== "string") return line.onAudio(new Uint8Array(message.data as ArrayBuffer));
      const event = JSON.parse(message.data);
      if (event.type === "answered") resolve();
      if (event.type === "ended") reject(new Error(`the softphone call ended: ${event.reason}`));
    });
    socket.addEventListener("error", () => reject(new Error("the softphone could not connect")));
  });
  return line;
}

/** A scripted trunk on loopback: it places calls into Parley's SIP listener and answers Parley's requests. */
export class SipCaller {
  private constructor(private readonly peer: SipPeer) {}

  static async start(): Promise<SipCaller> {
    return new SipCaller(await SipPeer.start("127.0.0.1", (peer, request, from) => answerParley(peer, request, from)));
  }

  /** Where Parley's SIP trunk must point. */
  get address(): string {
    return `127.0.0.1:${this.peer.port}`;
  }

  /** INVITE `to` at Parley's `sipPort` with a PCMU offer; resolves once answered (200, then ACK). */
  async call(sipPort: number, to: string): Promise<CallerLine> {
    const peer = this.peer;
    const callId = `${token()}@bench`;
    let rtpRemote: { address: string; port: number } | null = null;
    const line: CallerLine = { send: () => {}, onAudio: () => {}, hangup: async () => {} };
    const rtp = await Bun.udpSocket({
      hostname: "127.0.0.1",
      socket: { data: (_s, data) => {
        const packet = parseRtp(data);
        if (packet && packet.payloadType === 0) line.onAudio(packet.payload);
      } },
    });
    const request = (method: string, cseq: number, toTag: string | null, body = "") =>
      [
        `${method} sip:${to}@127.0.0.1:${sipPort} SIP/2.0`,
        `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK${token()};rport`,
        "Max-Forwards: 70",
        "From: <sip:+12125550100@127.0.0.1>;tag=benchcaller",
        `To: <sip:${to}@127.0.0.1>${toTag ? `;tag=${toTag}` : ""}`,
        `Call-ID: ${callId}`,
        `CSeq: ${cseq} ${method}`,
        `Contact: <sip:caller@127.0.0.1:${peer.port}>`,
        ...(body ? ["Content-Type: application/sdp"] : []),
        `Content-Length: ${Buffer.byteLength(body)}`,
        "",
        body,
      ].join("\r\n");
    const from = peer.received.length;
    peer.send(request("INVITE", 1, null, sdpOffer(rtp.port, [{ pt: 0, name: "PCMU" }, { pt: 101, name: "telephone-event" }])), sipPort);
    const ok = await peer.next((m) => m.type === "response" && m.status === 200 && m.headers.get("call-id") === callId, 10_000, from);
    const toTag = /tag=([^;>\s]+)/.exec(ok.headers.get("to")!)![1];
    peer.send(request("ACK", 1, toTag), sipPort);
    rtpRemote = readAnswer(ok.body).remote;
    const ssrc = (Math.random() * 0xffffffff) >>> 0;
    let sequence = 0;
    let timestamp = 0;
    line.send = (payload) => {
      if (!rtpRemote) return;
      rtp.send(serializeRtp({ payloadType: 0, marker: sequence === 0, payload, sequence: ++sequence & 0xffff, timestamp: (timestamp += 160) >>> 0, ssrc }), rtpRemote.port, rtpRemote.address);
    };
    line.hangup = async () => {
      rtpRemote = null;
      peer.send(request("BYE", 2, toTag), sipPort);
      await Bun.sleep(100);
      rtp.close();
    };
    return line;
  }

  close(): void {
    this.peer.close();
  }
}

/** Parley's own requests to the trunk (its BYE when the agent hangs up, OPTIONS) are all answered 200. */
function answerParley(peer: SipPeer, request: SipRequest, from: { address: string; port: number }): void {
  if (request.method !== "ACK") peer.send(reply(request, 200, "OK"), from.port, from.address);
}
