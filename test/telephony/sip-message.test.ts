// SIP message parsing and writing, header parts, and digest answers: the pieces the SIP trunk is built on.
import { describe, expect, test } from "bun:test";
import { formatNameAddr, numberOf, parseNameAddr, parseUri, parseVia } from "../../src/telephony/sip/address.ts";
import { digestAuthorization, parseChallenge } from "../../src/telephony/sip/digest.ts";
import { parseMessage, serialize, SipHeaders, SipParseError, SipStreamDecoder, type SipRequest } from "../../src/telephony/sip/message.ts";
import { responseTo } from "../../src/telephony/sip/responses.ts";

const INVITE = [
  "INVITE sip:+14155550123@10.0.0.5:5060 SIP/2.0",
  "Via: SIP/2.0/UDP 10.0.0.9:5062;branch=z9hG4bK776asdhds;rport",
  "Max-Forwards: 70",
  'f: "Alice" <sip:+12125550100@10.0.0.9>;tag=1928301774',
  "t: <sip:+14155550123@10.0.0.5>",
  "i: a84b4c76e66710@pc33.example.com",
  "CSeq: 314159 INVITE",
  "Contact: <sip:alice@10.0.0.9:5062>",
  "Subject: a folded",
  "  header value",
  "Content-Type: application/sdp",
  "Content-Length: 4",
  "",
  "v=0\r\nignored beyond the length",
].join("\r\n");

describe("SIP messages", () => {
  test("a request: compact headers expanded, folding joined, body cut at Content-Length", () => {
    const message = parseMessage(INVITE);
    expect(message.type).toBe("request");
    if (message.type !== "request") return;
    expect(message.method).toBe("INVITE");
    expect(message.uri).toBe("sip:+14155550123@10.0.0.5:5060");
    expect(message.headers.get("From")).toBe('"Alice" <sip:+12125550100@10.0.0.9>;tag=1928301774');
    expect(message.headers.get("call-id")).toBe("a84b4c76e66710@pc33.example.com");
    expect(message.headers.get("subject")).toBe("a folded header value");
    expect(message.body).toBe("v=0\r");
  });

  test("serialising writes canonical names and the real Content-Length; the result parses back", () => {
    const message = parseMessage(INVITE);
    message.body = "v=0\r\no=- 1 1 IN IP4 10.0.0.9\r\n";
    const text = serialize(message);
    expect(text).toContain("\r\nCall-ID: a84b4c76e66710@pc33.example.com\r\n");
    expect(text).toContain("\r\nCSeq: 314159 INVITE\r\n");
    expect(text).toContain(`\r\nContent-Length: ${message.body.length}\r\n\r\n`);
    expect(parseMessage(text).body).toBe(message.body);
  });

  test("a response, and Via lists split into their hops", () => {
    const message = parseMessage("SIP/2.0 180 Ringing\r\nVia: SIP/2.0/UDP a:5060;branch=z9hG4bK1, SIP/2.0/UDP b;branch=z9hG4bK2\r\nFrom: <sip:a@a>;tag=1\r\nTo: <sip:b@b>;tag=2\r\nCall-ID: x\r\nCSeq: 1 INVITE\r\n\r\n");
    expect(message).toMatchObject({ type: "response", status: 180, reason: "Ringing" });
    expect(message.headers.all("via").map((v) => parseVia(v).params.branch)).toEqual(["z9hG4bK1", "z9hG4bK2"]);
  });

  test("malformed messages are refused saying why", () => {
    const bad = [
      ["", /start line/],
      ["HELLO WORLD\r\n\r\n", /start line/],
      ["INVITE sip:a@b SIP/2.0\r\nVia: SIP/2.0/UDP x\r\nFrom: <sip:a@b>\r\nTo: <sip:a@b>\r\nCall-ID: 1\r\n\r\n", /missing cseq/],
      ["INVITE sip:a@b SIP/2.0\r\nVia: SIP/2.0/UDP x\r\nFrom: <sip:a@b>\r\nTo: <sip:a@b>\r\nCall-ID: 1\r\nCSeq: 1 BYE\r\n\r\n", /does not match/],
      ["INVITE sip:a@b SIP/2.0\r\nVia: SIP/2.0/UDP x\r\nFrom: <sip:a@b>\r\nTo: <sip:a@b>\r\nCall-ID: 1\r\nCSeq: 1 INVITE\r\nContent-Length: 99\r\n\r\nshort", /shorter than its Content-Length/],
      ["INVITE sip:a@b SIP/2.0\r\nno colon here\r\n\r\n", /without a name/],
      [`OPTIONS sip:a@b SIP/2.0\r\n${"X-A: 1\r\n".repeat(200)}\r\n`, /more than/],
      [`OPTIONS sip:a@b SIP/2.0\r\nX: ${"a".repeat(70_000)}\r\n\r\n`, /exceeds/],
    ] as const;
    for (const [text, reason] of bad) expect(() => parseMessage(text)).toThrow(reason);
    expect(() => parseMessage("")).toThrow(SipParseError);
  });

  test("a TCP stream is framed by Content-Length, across chunk boundaries and keep-alives", () => {
    const one = "OPTIONS sip:a@b SIP/2.0\r\nVia: SIP/2.0/TCP x\r\nFrom: <sip:a@b>;tag=1\r\nTo: <sip:a@b>\r\nCall-ID: 1\r\nCSeq: 1 OPTIONS\r\nContent-Length: 3\r\n\r\nabc";
    const bytes = new TextEncoder().encode(`\r\n\r\n${one}${one}`);
    const decoder = new SipStreamDecoder();
    const out = [...decoder.push(bytes.subarray(0, 50)), ...decoder.push(bytes.subarray(50, 170)), ...decoder.push(bytes.subarray(170))];
    expect(out.map((m) => parseMessage(m).body)).toEqual(["abc", "abc"]);
    expect(() => new SipStreamDecoder().push(new TextEncoder().encode("OPTIONS sip:a@b SIP/2.0\r\nVia: x\r\n\r\n"))).toThrow(/without Content-Length/);
  });

  test("headers are case-insensitive and keep their order", () => {
    const headers = new SipHeaders([["Via", "1"], ["v", "2"], ["To", "t"]]);
    expect(headers.all("VIA")).toEqual(["1", "2"]);
    headers.set("via", "3");
    expect(headers.list()).toEqual([["to", "t"], ["via", "3"]]);
  });
});

describe("responses", () => {
  test("copy Via, From, Call-ID and CSeq; final answers get a To tag, 100 Trying never does", () => {
    const request = parseMessage(INVITE) as SipRequest;
    const busy = responseTo(request, 486, { toTag: "abc123" });
    const text = serialize(busy);
    expect(text.startsWith("SIP/2.0 486 Busy Here\r\n")).toBe(true);
    const back = parseMessage(text);
    expect(back.headers.get("via")).toBe(request.headers.get("via"));
    expect(back.headers.get("to")).toBe("<sip:+14155550123@10.0.0.5>;tag=abc123");
    expect(back.headers.get("cseq")).toBe("314159 INVITE");
    expect(responseTo(request, 100, { toTag: "abc123" }).headers.get("to")).toBe("<sip:+14155550123@10.0.0.5>");
    const withSdp = responseTo(request, 200, { toTag: "t", headers: [["Content-Type", "application/sdp"]], body: "v=0\r\n" });
    expect(serialize(withSdp)).toContain("Content-Type: application/sdp\r\nContent-Length: 5\r\n\r\nv=0\r\n");
  });
});

describe("header parts", () => {
  test("URIs: user, host, port, params; tel URIs; the number they name", () => {
    expect(parseUri("sip:+1-415-555-0123@Trunk.Example.com:5080;transport=tcp;lr")).toEqual({
      scheme: "sip",
      user: "+1-415-555-0123",
      host: "trunk.example.com",
      port: 5080,
      params: { transport: "tcp", lr: null },
    });
    expect(numberOf(parseUri("sip:+1-415-555-0123@h"))).toBe("+14155550123");
    expect(numberOf(parseUri("tel:+14155550123"))).toBe("+14155550123");
    expect(numberOf(parseUri("sip:alice@h"))).toBeNull();
    expect(parseUri("sip:[::1]:5070").host).toBe("[::1]");
    expect(() => parseUri("http://x")).toThrow(SipParseError);
    expect(() => parseUri("sip:a@b:70000")).toThrow(/port/);
  });

  test("name-addrs with and without angle brackets; the tag is a header parameter", () => {
    expect(parseNameAddr('"Bob, the builder" <sip:bob@b;transport=udp>;tag=a6c85cf')).toEqual({ display: "Bob, the builder", uri: "sip:bob@b;transport=udp", params: { tag: "a6c85cf" } });
    expect(parseNameAddr("Bob <sip:bob@b>")).toMatchObject({ display: "Bob", uri: "sip:bob@b" });
    expect(parseNameAddr("sip:bob@b;tag=9")).toEqual({ display: null, uri: "sip:bob@b", params: { tag: "9" } });
    expect(formatNameAddr({ display: 'Eve "E"', uri: "sip:e@h", params: { tag: "1" } })).toBe('"Eve E" <sip:e@h>;tag=1');
  });
});

describe("digest authentication", () => {
  test("answers RFC 2617's own example exactly", () => {
    const challenge = parseChallenge('Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"')!;
    expect(challenge).toEqual({ realm: "testrealm@host.com", nonce: "dcd98b7102dd2f0e8b11d0f600bfb0c093", algorithm: "MD5", qop: "auth", opaque: "5ccc069c403ebaf9f0171e9517f40e41" });
    const header = digestAuthorization(challenge, { method: "GET", uri: "/dir/index.html", username: "Mufasa", password: "Circle Of Life", nonceCount: 1, cnonce: "0a4f113b" });
    expect(header).toContain('response="6629fae49393a05397450978507c4ef1"');
    expect(header).toContain("nc=00000001");
    expect(header).toContain('opaque="5ccc069c403ebaf9f0171e9517f40e41"');
  });

  test("without qop the response is the RFC 2069 form; unknown schemes and algorithms are not answered", () => {
    const challenge = parseChallenge('Digest realm="asterisk", nonce="1a2b3c"')!;
    expect(challenge.qop).toBeNull();
    expect(digestAuthorization(challenge, { method: "REGISTER", uri: "sip:pbx", username: "1001", password: "pw" })).not.toContain("qop=");
    expect(parseChallenge('Basic realm="x"')).toBeNull();
    expect(parseChallenge('Digest realm="x", nonce="n", algorithm=MD5-sess')).toBeNull();
    expect(parseChallenge('Digest realm="x", nonce="n", algorithm=SHA-256')?.algorithm).toBe("SHA-256");
  });
});
