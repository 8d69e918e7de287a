// A real DNS server on loopback UDP for tests: it speaks the RFC 1035 wire format and answers TXT
// questions from a table the test edits; any other name is NXDOMAIN, any other type of a known name
// an empty answer. Pass `address` to the server under test (e.g. --dns-servers).
import { createSocket, type Socket } from "node:dgram";

export interface DnsServer {
  /** `127.0.0.1:<port>`, as --dns-servers takes it. */
  address: string;
  /** TXT records by name (lower case, no trailing dot); each value is one record. */
  txt: Map<string, string[]>;
  /** Every question asked, as `<name> <type number>`. */
  questions: string[];
  stop(): Promise<void>;
}

const TYPE_TXT = 16;
const TYPE_ANY = 255;
const RCODE_FORMERR = 1;
const RCODE_NXDOMAIN = 3;

export async function startDnsServer(): Promise<DnsServer> {
  const socket: Socket = createSocket("udp4");
  const txt = new Map<string, string[]>();
  const questions: string[] = [];
  socket.on("message", (query, peer) => {
    const answer = respond(query, txt, questions);
    if (answer) socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    txt,
    questions,
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** The response to one query message, or null for one too broken to answer. */
function respond(query: Buffer, txt: Map<string, string[]>, questions: string[]): Buffer | null {
  if (query.length < 12) return null;
  const id = query.readUInt16BE(0);
  const recursionDesired = query[2] & 0x01;
  const question = readQuestion(query);
  if (!question) return header(id, recursionDesired, RCODE_FORMERR, 0, 0);
  questions.push(`${question.name} ${question.type}`);
  const records = txt.get(question.name.toLowerCase());
  if (!records) return Buffer.concat([header(id, recursionDesired, RCODE_NXDOMAIN, 1, 0), question.raw]);
  const answers = question.type === TYPE_TXT || question.type === TYPE_ANY ? records.map(txtRecord) : [];
  return Buffer.concat([header(id, recursionDesired, 0, 1, answers.length), question.raw, ...answers]);
}

function header(id: number, recursionDesired: number, rcode: number, questionCount: number, answerCount: number): Buffer {
  const out = Buffer.alloc(12);
  out.writeUInt16BE(id, 0);
  out[2] = 0x80 | 0x04 | recursionDesired; // QR (a response), AA (authoritative), RD echoed
  out[3] = 0x80 | rcode; // RA
  out.writeUInt16BE(questionCount, 4);
  out.writeUInt16BE(answerCount, 6);
  return out;
}

/** The first question: its name (labels joined by dots), type, and its bytes to echo back. */
function readQuestion(query: Buffer): { name: string; type: number; raw: Buffer } | null {
  if (query.readUInt16BE(4) < 1) return null;
  const labels: string[] = [];
  let at = 12;
  while (at < query.length) {
    const length = query[at];
    if (length === 0) break;
    if (length > 63 || at + 1 + length > query.length) return null; // no compression in questions we send
    labels.push(query.toString("latin1", at + 1, at + 1 + length));
    at += 1 + length;
  }
  if (at + 5 > query.length) return null;
  const type = query.readUInt16BE(at + 1);
  return { name: labels.join("."), type, raw: query.subarray(12, at + 5) };
}

/** One TXT answer for the question's name (a pointer to offset 12), its text in strings of up to 255 bytes. */
function txtRecord(value: string): Buffer {
  const text = Buffer.from(value, "utf8");
  const strings: Buffer[] = [];
  for (let at = 0; at < text.length || strings.length === 0; at += 255) {
    const chunk = text.subarray(at, at + 255);
    strings.push(Buffer.concat([Buffer.from([chunk.length]), chunk]));
  }
  const rdata = Buffer.concat(strings);
  const fixed = Buffer.alloc(12);
  fixed.writeUInt16BE(0xc00c, 0);
  fixed.writeUInt16BE(TYPE_TXT, 2);
  fixed.writeUInt16BE(1, 4); // class IN
  fixed.writeUInt32BE(60, 6); // TTL
  fixed.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([fixed, rdata]);
}
