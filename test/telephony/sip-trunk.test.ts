// The SIP trunk's protocol corners against a scripted peer on loopback: retransmissions, A-law,
// hold, malformed and hostile messages, digest challenges with a wrong and a right password, and
// registration. Whole calls against a real phone are in sip-baresip.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SipRequest } from "../../src/telephony/sip/message.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { uploadCsv } from "../helpers/campaigns.ts";
import { freePort } from "../helpers/baresip.ts";
import { serverWithUser } from "../helpers/fixtures.ts";
import { digestValid, reply, sdpOffer, SipPeer, token } from "../helpers/sip-peer.ts";

const s = serverWithUser("sip-trunk");
const opts = () => ({ token: s.user.token });
const NUMBER = "+14155550160";
const CALL_TIMEOUT = 30_000;

let trunk: SipPeer;
let media: Bun.udp.Socket<"buffer">;
let rtpPackets: { pt: number; length: number }[] = [];
let sipPort: number;
let connectionId: string;
let agentId: string;
/** How the trunk answers Parley's requests; tests swap it. */
let script: (request: SipRequest, from: { address: string; port: number }) => void = () => {};

async function post(path: string, body?: unknown) {
  const res = await s.server.api.post(path, body, opts());
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

async function status(): Promise<{ state: string; detail: string | null; listen_port: number | null }> {
  return (await s.server.api.get(`/v1/telephony/carriers/${connectionId}`, opts())).body.status;
}

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

function invite(options: { callId: string; branch: string; to?: string; sdp: string; cseq?: number; toTag?: string; method?: string; port?: number }): string {
  const method = options.method ?? "INVITE";
  return [
    `${method} sip:${options.to ?? NUMBER}@127.0.0.1:${sipPort} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${options.port ?? trunk.port};branch=z9hG4bK${options.branch};rport`,
    "Max-Forwards: 70",
    `From: <sip:+12125550100@127.0.0.1>;tag=caller1`,
    `To: <sip:${options.to ?? NUMBER}@127.0.0.1>${options.toTag ? `;tag=${options.toTag}` : ""}`,
    `Call-ID: ${options.callId}`,
    `CSeq: ${options.cseq ?? 1} ${method === "ACK" ? "ACK" : method}`,
    `Contact: <sip:caller@127.0.0.1:${options.port ?? trunk.port}>`,
    ...(options.sdp ? ["Content-Type: application/sdp"] : []),
    `Content-Length: ${Buffer.byteLength(options.sdp)}`,
    "",
    options.sdp,
  ].join("\r\n");
}

const isResponse = (status: number, callId: string, method = "INVITE") => (m: any) => m.type === "response" && m.status === status && m.headers.get("call-id") === callId && m.headers.get("cseq").endsWith(method);

beforeAll(async () => {
  trunk = await SipPeer.start("127.0.0.1", (_peer, request, from) => script(request, from));
  media = await Bun.udpSocket({ hostname: "127.0.0.1", port: 0, socket: { data: (_s, data) => void rtpPackets.push({ pt: data[1] & 0x7f, length: data.length }) } });
  sipPort = await freePort("udp");
  agentId = (await post("/v1/agents", { name: "Desk", first_message: "Hello, this is the front desk." })).id;
  connectionId = (await post("/v1/telephony/carriers", { name: "Scripted trunk", kind: "sip", settings: { trunk: `127.0.0.1:${trunk.port}`, listen_host: "127.0.0.1", listen_port: sipPort, rtp_port_min: 41000, rtp_port_max: 41999, keepalive_seconds: 0 } })).id;
  const number = await post("/v1/phone-numbers/import", { number: NUMBER, carrier: connectionId });
  await post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agentId });
  await until(async () => (await status()).state === "listening", "the trunk to listen");
});

afterAll(() => {
  trunk?.close();
  media?.close();
});

describe("calls from the trunk", () => {
  test("a retransmitted INVITE is one call; A-law is answered in A-law and audio flows; hold is answered; BYE ends it", async () => {
    const callId = `${token()}@peer`;
    const offer = sdpOffer(media.port, [{ pt: 8, name: "PCMA" }, { pt: 101, name: "telephone-event" }]);
    const from = trunk.received.length;
    trunk.send(invite({ callId, branch: "retx1", sdp: offer }), sipPort);
    trunk.send(invite({ callId, branch: "retx1", sdp: offer }), sipPort);
    const ok = await trunk.next(isResponse(200, callId), 5_000, from);
    expect(ok.body).toContain("PCMA/8000");
    expect(ok.body).not.toContain("PCMU");
    const toTag = /tag=([^;>\s]+)/.exec(ok.headers.get("to")!)![1];
    trunk.send(invite({ callId, branch: "ack1", sdp: "", method: "ACK", toTag }), sipPort);

    const calls = (await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data.filter((c: any) => c.to === NUMBER && c.status !== "completed");
    expect(calls).toHaveLength(1);
    const call = await waitForCall(s.server.api, s.user.token, calls[0].id, (c) => c.status === "in_progress", 5_000);
    // The greeting arrives as A-law RTP, 160 bytes of payload every 20 ms.
    await until(() => rtpPackets.filter((p) => p.pt === 8).length > 25, "the greeting's RTP");
    expect(new Set(rtpPackets.filter((p) => p.pt === 8).map((p) => p.length))).toEqual(new Set([172]));

    // Put on hold (sendonly from the phone): answered recvonly, and nothing more is sent.
    const held = trunk.received.length;
    trunk.send(invite({ callId, branch: "hold1", sdp: sdpOffer(media.port, [{ pt: 8, name: "PCMA" }], "sendonly"), cseq: 2, toTag }), sipPort);
    const holdOk = await trunk.next(isResponse(200, callId), 5_000, held);
    expect(holdOk.body).toContain("a=recvonly");
    trunk.send(invite({ callId, branch: "ack2", sdp: "", method: "ACK", cseq: 2, toTag }), sipPort);

    const bye = trunk.received.length;
    trunk.send(invite({ callId, branch: "bye1", sdp: "", method: "BYE", cseq: 3, toTag }), sipPort);
    await trunk.next(isResponse(200, callId, "BYE"), 5_000, bye);
    expect(await waitForCall(s.server.api, s.user.token, call.id)).toMatchObject({ status: "completed", end_reason: "customer_hangup" });
    // Exactly one call for the doubled INVITE.
    expect((await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data.filter((c: any) => c.to === NUMBER)).toHaveLength(1);
  }, CALL_TIMEOUT);

  test("refusals: 400 for a malformed request, 488 with no common codec, 403 from a stranger; garbage is dropped and the trunk stays up", async () => {
    const before = (await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data.length;
    const bad = `${token()}@peer`;
    trunk.send(invite({ callId: bad, branch: "bad1", sdp: "" }).replace("CSeq: 1 INVITE", "CSeq: one INVITE"), sipPort);
    // The 400 echoes the CSeq it could not read, so it is read here as text.
    await until(() => trunk.unparsed.some((text) => text.includes(bad)), "the 400");
    const refused = trunk.unparsed.find((text) => text.includes(bad))!;
    expect(refused).toStartWith("SIP/2.0 400 Bad Request (bad CSeq one INVITE)");
    let from = trunk.received.length;

    const g722 = `${token()}@peer`;
    from = trunk.received.length;
    trunk.send(invite({ callId: g722, branch: "g7221", sdp: sdpOffer(media.port, [{ pt: 9, name: "G722" }]) }), sipPort);
    const notAcceptable = await trunk.next(isResponse(488, g722), 5_000, from);
    expect(notAcceptable.headers.get("warning")).toContain("no common codec");

    const stranger = await SipPeer.start("127.0.0.2");
    try {
      const theirs = `${token()}@stranger`;
      stranger.send(invite({ callId: theirs, branch: "str1", sdp: sdpOffer(media.port, [{ pt: 0, name: "PCMU" }]), port: stranger.port }), sipPort);
      await stranger.next(isResponse(403, theirs));
    } finally {
      stranger.close();
    }

    trunk.sendRaw(new Uint8Array(60_000).fill(0x41), sipPort);
    trunk.sendRaw("\x00\x01garbage\r\n\r\n", sipPort);
    const alive = `${token()}@peer`;
    from = trunk.received.length;
    trunk.send(invite({ callId: alive, branch: "opt1", sdp: "", method: "OPTIONS" }), sipPort);
    await trunk.next(isResponse(200, alive, "OPTIONS"), 5_000, from);
    expect((await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data).toHaveLength(before);
  }, CALL_TIMEOUT);
});

describe("TCP", () => {
  test("a trunk on TCP frames messages by Content-Length across writes and answers on the same connection", async () => {
    const tcpPort = await freePort("tcp");
    const tcp = await post("/v1/telephony/carriers", { name: "TCP trunk", kind: "sip", settings: { trunk: "127.0.0.1:5999", transport: "tcp", listen_host: "127.0.0.1", listen_port: tcpPort, keepalive_seconds: 0 } });
    await until(async () => (await s.server.api.get(`/v1/telephony/carriers/${tcp.id}`, opts())).body.status.state === "listening", "the TCP trunk");
    let received = "";
    const socket = await Bun.connect({ hostname: "127.0.0.1", port: tcpPort, socket: { data: (_s, chunk) => void (received += Buffer.from(chunk).toString()) } });
    const callId = `${token()}@tcp`;
    const options = invite({ callId, branch: "tcp1", sdp: "", method: "OPTIONS" }).replace("SIP/2.0/UDP", "SIP/2.0/TCP").replace(`:${sipPort} SIP/2.0`, `:${tcpPort} SIP/2.0`);
    // A keep-alive CRLF, then the request in two pieces.
    socket.write("\r\n\r\n");
    socket.write(options.slice(0, 40));
    await Bun.sleep(50);
    socket.write(options.slice(40));
    await until(() => received.includes(callId), "the answer over TCP");
    expect(received).toStartWith("SIP/2.0 200 OK");
    expect(received).toContain("Allow: INVITE");
    socket.end();
    expect((await s.server.api.delete(`/v1/telephony/carriers/${tcp.id}`, opts())).status).toBe(204);
  });
});

describe("test keys", () => {
  test("reach only the simulated carrier: no call out of the trunk, no number onto it", async () => {
    const key = await s.server.api.post("/v1/api-keys", { name: "sandbox", scope: "write", mode: "test" }, opts());
    expect(key.status).toBe(201);
    const asTest = { token: key.body.key };
    const call = await s.server.api.post("/v1/calls/outbound", { agent_id: agentId, to: "+14155550199", from: NUMBER }, asTest);
    expect(`${call.status} ${call.body.code}`).toBe("403 forbidden");
    expect(call.body.detail).toContain("test keys only reach the simulated carrier");
    const imported = await s.server.api.post("/v1/phone-numbers/import", { number: "+14155550169", carrier: connectionId }, asTest);
    expect(imported.status).toBe(403);
    // The simulated carrier is theirs to use.
    expect((await s.server.api.post("/v1/phone-numbers/buy", { number: "+14155550168" }, asTest)).status).toBe(201);
  });

  test("a campaign a test key starts, or a schedule it sets up, dials no further than the key reaches", async () => {
    const key = await s.server.api.post("/v1/api-keys", { name: "sandbox dialer", scope: "write", mode: "test" }, opts());
    const asTest = { token: key.body.key };
    const trunkNumber = (await s.server.api.get("/v1/phone-numbers?limit=100", opts())).body.data.find((n: any) => n.number === NUMBER);
    const campaign = await s.server.api.post("/v1/campaigns", { name: "Sandbox", agent_id: agentId, from_number_id: trunkNumber.id }, asTest);
    expect(campaign.status).toBe(201);
    expect((await uploadCsv(s.server.url, key.body.key, campaign.body.id, "phone\n+14155550197\n")).status).toBe(201);
    expect((await s.server.api.post(`/v1/campaigns/${campaign.body.id}/start`, undefined, asTest)).status).toBe(200);
    // The first dial is refused: the campaign pauses itself and says why; the contact waits, uncalled.
    let paused: any;
    await until(async () => (paused = (await s.server.api.get(`/v1/campaigns/${campaign.body.id}`, opts())).body).status === "paused", "the campaign to pause", 15_000);
    expect(paused.last_error).toContain("test keys only reach the simulated carrier");
    const contacts = (await s.server.api.get(`/v1/campaigns/${campaign.body.id}/contacts`, opts())).body.data;
    expect(contacts.map((c: any) => `${c.phone} ${c.status} ${c.attempts}`)).toEqual(["+14155550197 pending 0"]);

    // The server's clock is the suite's to move: the run falls due a minute on.
    const schedule = await s.server.api.post("/v1/schedules", { agent_id: agentId, to: "+14155550196", from: NUMBER, at: new Date(s.server.clock.now() + 60_000).toISOString() }, asTest);
    expect(schedule.status).toBe(201);
    s.server.clock.advance(60_000);
    let run: any;
    await until(async () => Boolean((run = (await s.server.api.get(`/v1/schedules/${schedule.body.id}`, opts())).body.runs[0])), "the scheduled run", 15_000);
    expect(run).toMatchObject({ status: "failed", call_id: null });
    expect(run.detail).toContain("test keys only reach the simulated carrier");
    const dialled = (await s.server.api.get("/v1/calls?limit=100", opts())).body.data.filter((c: any) => c.to === "+14155550197" || c.to === "+14155550196");
    expect(dialled).toEqual([]);
  }, 30_000);
});

describe("the port", () => {
  test("listen_port 0: the port the OS chose is the status's listen_port, and the trunk answers there", async () => {
    const created = await post("/v1/telephony/carriers", { name: "Any port", kind: "sip", settings: { trunk: `127.0.0.1:${trunk.port}`, listen_host: "127.0.0.1", listen_port: 0, keepalive_seconds: 0 } });
    try {
      let current: { state: string; detail: string | null; listen_port: number | null } = created.status;
      await until(async () => (current = (await s.server.api.get(`/v1/telephony/carriers/${created.id}`, opts())).body.status).state === "listening", "the trunk to listen");
      expect(current.listen_port).toBeGreaterThan(0);
      expect((await status()).listen_port).toBe(sipPort); // a fixed port is said too
      const callId = `${token()}@peer`;
      const from = trunk.received.length;
      trunk.send(invite({ callId, branch: "opt1", sdp: "", method: "OPTIONS" }), current.listen_port!);
      await trunk.next(isResponse(200, callId, "OPTIONS"), 5_000, from);
    } finally {
      await s.server.api.delete(`/v1/telephony/carriers/${created.id}`, opts());
    }
  });
});

describe("digest authentication", () => {
  const NONCE = "a1b2c3d4";
  /** A trunk that challenges every INVITE and REGISTER and knows only the password "right". */
  const challenging = (request: SipRequest, from: { port: number }) => {
    const auth = request.headers.get("authorization");
    if (request.method === "INVITE" || request.method === "REGISTER") {
      if (!auth || !digestValid(auth, request.method, "right")) {
        trunk.send(reply(request, 401, "Unauthorized", [`WWW-Authenticate: Digest realm="lab", nonce="${NONCE}", qop="auth", algorithm=MD5`], "", "trunk1"), from.port);
        return;
      }
      if (request.method === "REGISTER") {
        trunk.send(reply(request, 200, "OK", [`Contact: ${request.headers.get("contact")};expires=60`]), from.port);
        return;
      }
      trunk.send(reply(request, 180, "Ringing", [], "", "callee1"), from.port);
      trunk.send(reply(request, 200, "OK", ["Contact: <sip:callee@127.0.0.1>", "Content-Type: application/sdp"], sdpOffer(media.port, [{ pt: 0, name: "PCMU" }]), "callee1"), from.port);
    }
    if (request.method === "BYE") trunk.send(reply(request, 200, "OK"), from.port);
  };

  test("a wrong password fails the call saying so; the right one connects, and the ACK and BYE follow", async () => {
    script = challenging;
    let res = await s.server.api.patch(`/v1/telephony/carriers/${connectionId}`, { settings: { register: false }, credentials: { username: "parley", password: "wrong" } }, opts());
    expect(res.status).toBe(200);
    expect(res.body.credentials).toEqual({ username: "••••", password: "••••" });
    await until(async () => (await status()).state === "listening", "the rebuilt trunk");
    const failed = await post("/v1/calls/outbound", { agent_id: agentId, to: "+14155550199", from: NUMBER });
    const ended = await waitForCall(s.server.api, s.user.token, failed.id);
    expect(ended).toMatchObject({ status: "failed" });
    const events = (await s.server.api.get(`/v1/calls/${failed.id}/events`, opts())).body.data;
    expect(JSON.stringify(events)).toContain("refused the credentials of parley");

    res = await s.server.api.patch(`/v1/telephony/carriers/${connectionId}`, { credentials: { password: "right" } }, opts());
    await until(async () => (await status()).state === "listening", "the rebuilt trunk");
    const from = trunk.received.length;
    const placed = await post("/v1/calls/outbound", { agent_id: agentId, to: "+14155550199", from: NUMBER });
    await waitForCall(s.server.api, s.user.token, placed.id, (c) => c.status === "in_progress", 10_000);
    const ack = await trunk.next((m: any) => m.type === "request" && m.method === "ACK" && m.headers.get("to").includes("callee1"), 5_000, from);
    expect(ack.headers.get("cseq")).toBe("2 ACK");
    expect((await s.server.api.post(`/v1/calls/${placed.id}/hangup`, undefined, opts())).status).toBe(202);
    await trunk.next((m: any) => m.type === "request" && m.method === "BYE", 5_000, from);
    expect(await waitForCall(s.server.api, s.user.token, placed.id)).toMatchObject({ status: "completed", end_reason: "agent_hangup" });
  }, CALL_TIMEOUT);

  /** A trunk that answers a wrong password with 403 Forbidden (as many do) instead of challenging again; 403 outright to a caller it does not take. */
  const forbidding = (request: SipRequest, from: { port: number }) => {
    const auth = request.headers.get("authorization");
    if (request.method !== "INVITE" && request.method !== "REGISTER") return;
    if (request.headers.get("to")?.includes("+14155550198")) trunk.send(reply(request, 403, "Forbidden", [], "", "trunk3"), from.port);
    else if (!auth) trunk.send(reply(request, 401, "Unauthorized", [`WWW-Authenticate: Digest realm="lab", nonce="${NONCE}", qop="auth", algorithm=MD5`], "", "trunk2"), from.port);
    else if (!digestValid(auth, request.method, "right")) trunk.send(reply(request, 403, "Forbidden", [], "", "trunk2"), from.port);
  };

  test("a 403 to the password is the trunk refusing the credentials (call and registration); a 403 outright fails the call with 403 Forbidden", async () => {
    script = forbidding;
    await s.server.api.patch(`/v1/telephony/carriers/${connectionId}`, { settings: { register: false }, credentials: { username: "parley", password: "wrong" } }, opts());
    await until(async () => (await status()).state === "listening", "the rebuilt trunk");
    const eventsOf = async (to: string) => {
      const call = await post("/v1/calls/outbound", { agent_id: agentId, to, from: NUMBER });
      expect(await waitForCall(s.server.api, s.user.token, call.id)).toMatchObject({ status: "failed" });
      return JSON.stringify((await s.server.api.get(`/v1/calls/${call.id}/events`, opts())).body.data);
    };
    expect(await eventsOf("+14155550199")).toContain("the trunk refused the credentials of parley (403 Forbidden): check the password");
    const outright = await eventsOf("+14155550198");
    expect(outright).toContain("403 Forbidden");
    expect(outright).not.toContain("credentials");

    await s.server.api.patch(`/v1/telephony/carriers/${connectionId}`, { settings: { register: true, register_expires: 60 } }, opts());
    await until(async () => (await status()).state === "failed", "the refusal");
    expect((await status()).detail).toBe("the registrar refused the credentials of parley (403 Forbidden): check the password");
  }, CALL_TIMEOUT);

  test("registration: refused with the wrong password (the status says why), registered with the right one", async () => {
    script = challenging;
    await s.server.api.patch(`/v1/telephony/carriers/${connectionId}`, { settings: { register: true, register_expires: 60 }, credentials: { password: "wrong" } }, opts());
    await until(async () => (await status()).state === "failed", "the refusal");
    expect((await status()).detail).toContain("refused the credentials of parley");
    await s.server.api.patch(`/v1/telephony/carriers/${connectionId}`, { credentials: { password: "right" } }, opts());
    await until(async () => (await status()).state === "registered", "the registration");
    const register = trunk.received.map((r) => r.message).filter((m: any) => m.type === "request" && m.method === "REGISTER").at(-1) as SipRequest;
    expect(register.headers.get("contact")).toContain(`127.0.0.1:${sipPort}`);
    expect(register.headers.get("expires")).toBe("60");
  }, CALL_TIMEOUT);
});
