// The far end of the SIP benchmark, in its own process: a minimal trunk that answers every INVITE
// with PCMU, streams the caller's µ-law loop back every 20 ms on its own timer, and measures what
// Parley sends: frames per call, lost (sequence gaps), and late (arriving more than 20 ms after
// the frame's place on the 20 ms timeline). Reads "report" on stdin, prints one JSON line.
import { parseMessage, serialize, type SipRequest } from "../../src/telephony/sip/message.ts";
import { responseTo } from "../../src/telephony/sip/responses.ts";
import { parseRtp, serializeRtp } from "../../src/telephony/rtp/packet.ts";
import { readAnswer } from "../../src/telephony/sip/sdp.ts";

const sipPort = Number(process.argv[2] ?? 0);

interface Stream {
  socket: Bun.udp.Socket<"buffer">;
  remote: { address: string; port: number } | null;
  seq: number;
  ts: number;
  received: number;
  lost: number;
  late: number;
  lastSeq: number | null;
  /** When frame 0 of Parley's stream was due, so each arrival can be placed on the 20 ms timeline. */
  origin: number | null;
  originTs: number;
  timer: ReturnType<typeof setInterval> | null;
}

const streams = new Map<string, Stream>();
let rtpPort = 46000;
let measuring = false;

const sip = await Bun.udpSocket({
  hostname: "127.0.0.1",
  port: sipPort,
  socket: {
    data: (_s, data, port, address) => {
      let message;
      try {
        message = parseMessage(data);
      } catch {
        return;
      }
      if (message.type !== "request") return;
      void handle(message, { address, port });
    },
  },
});

async function handle(request: SipRequest, from: { address: string; port: number }) {
  const callId = request.headers.get("call-id")!;
  const send = (status: number, options: Parameters<typeof responseTo>[2] = {}) => sip.send(serialize(responseTo(request, status, { toTag: "far", ...options })), from.port, from.address);
  if (request.method === "INVITE") {
    if (streams.has(callId)) return;
    const offer = readAnswer(request.body);
    const port = (rtpPort += 2);
    const stream: Stream = { socket: null as never, remote: offer.remote, seq: 0, ts: 0, received: 0, lost: 0, late: 0, lastSeq: null, origin: null, originTs: 0, timer: null };
    stream.socket = await Bun.udpSocket({ hostname: "127.0.0.1", port, socket: { data: (_s, data) => receive(stream, data) } });
    streams.set(callId, stream);
    const sdp = ["v=0", "o=far 1 1 IN IP4 127.0.0.1", "s=-", "c=IN IP4 127.0.0.1", "t=0 0", `m=audio ${port} RTP/AVP 0`, "a=rtpmap:0 PCMU/8000", "a=sendrecv", ""].join("\r\n");
    send(200, { headers: [["contact", `<sip:far@127.0.0.1:${sip.port}>`], ["content-type", "application/sdp"]], body: sdp });
    // The caller talks: a µ-law frame every 20 ms (a tone-free loop of speech-like noise).
    const payload = new Uint8Array(160);
    stream.timer = setInterval(() => {
      for (let i = 0; i < 160; i++) payload[i] = 0x70 + ((Math.random() * 24) | 0);
      stream.seq = (stream.seq + 1) & 0xffff;
      stream.ts = (stream.ts + 160) >>> 0;
      if (stream.remote) stream.socket.send(serializeRtp({ payloadType: 0, marker: false, sequence: stream.seq, timestamp: stream.ts, ssrc: 7, payload }), stream.remote.port, stream.remote.address);
    }, 20);
  } else if (request.method === "BYE") {
    send(200);
    const stream = streams.get(callId);
    if (stream?.timer) clearInterval(stream.timer);
    stream?.socket.close();
  } else if (request.method !== "ACK") send(200);
}

function receive(stream: Stream, data: Uint8Array) {
  const packet = parseRtp(data);
  if (!packet) return;
  const now = performance.now();
  if (stream.origin === null) {
    stream.origin = now;
    stream.originTs = packet.timestamp;
  }
  if (!measuring) return;
  stream.received++;
  if (stream.lastSeq !== null) {
    const gap = (packet.sequence - stream.lastSeq) & 0xffff;
    if (gap > 1 && gap < 1000) stream.lost += gap - 1;
  }
  stream.lastSeq = packet.sequence;
  // Its place on the timeline, from the RTP timestamp; the earliest arrivals define the timeline.
  const due = stream.origin + ((packet.timestamp - stream.originTs) >>> 0) / 8;
  if (now < due) {
    stream.origin -= due - now;
  } else if (now - due > 20) stream.late++;
}

console.log(JSON.stringify({ port: sip.port }));
for await (const line of console) {
  if (line === "measure") {
    for (const stream of streams.values()) stream.lastSeq = null;
    measuring = true;
    console.log(JSON.stringify({ measuring: true }));
  } else if (line === "report") {
    measuring = false;
    let received = 0;
    let lost = 0;
    let late = 0;
    for (const stream of streams.values()) {
      received += stream.received;
      lost += stream.lost;
      late += stream.late;
      stream.received = stream.lost = stream.late = 0;
    }
    console.log(JSON.stringify({ calls: streams.size, received, lost, late }));
  } else if (line === "reset") {
    for (const stream of streams.values()) {
      if (stream.timer) clearInterval(stream.timer);
      stream.socket.close();
    }
    streams.clear();
    console.log(JSON.stringify({ reset: true }));
  }
}
