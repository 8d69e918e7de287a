// An HTTP/1.1 request over a socket of its own whose body is sent in part: the request stays in flight
// (its Idempotency-Key claimed, its handler reading) until the test writes the rest.
import { expect } from "bun:test";
import { connect, type Socket } from "node:net";

export interface HeldRequest {
  socket: Socket;
  /** The answer, once the rest of the body was written and the server replied (the connection closes). */
  response: Promise<{ status: number; body: any }>;
}

export async function holdRequest(base: string, method: string, path: string, headers: Record<string, string>, bodyStart: string): Promise<HeldRequest> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const head = [`${method} ${path} HTTP/1.1`, `host: ${hostname}:${port}`, "connection: close", ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  socket.write(`${head.join("\r\n")}\r\n\r\n${bodyStart}`);
  const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString()));
    socket.on("error", reject);
    socket.on("close", () => {
      const [head, ...rest] = text.split("\r\n\r\n");
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]);
      const raw = rest.join("\r\n\r\n");
      // Chunked or not, the JSON is the one object in the body.
      const json = raw.slice(raw.indexOf("{"), raw.lastIndexOf("}") + 1);
      resolve({ status, body: json ? JSON.parse(json) : null });
    });
  });
  return { socket, response };
}

/** An answer as the tests compare them: status, whether it was replayed, the JSON body. */
export interface UploadAnswer {
  status: number;
  replayed: boolean;
  body: any;
}

/**
 * A campaign's contacts upload (20 rows) with an Idempotency-Key, held half-sent on `base`: `send(node)`
 * sends the same request whole to any node; `finish()` sends the rest of the held one and checks its 201.
 */
export async function holdUpload(base: string, campaignId: string, token: string, idempotencyKey: string) {
  const rows = 20;
  const csv = `phone,name\n${Array.from({ length: rows }, (_, i) => `+1415555${String(100 + i).padStart(4, "0")},Contact ${i}`).join("\n")}\n`;
  const headers = { authorization: `Bearer ${token}`, "content-type": "text/csv", "idempotency-key": idempotencyKey };
  const path = `/v1/campaigns/${campaignId}/upload`;
  const half = Math.floor(csv.length / 2);
  const held = await holdRequest(base, "POST", path, { ...headers, "content-length": String(csv.length) }, csv.slice(0, half));
  return {
    async send(node: string): Promise<UploadAnswer> {
      const res = await fetch(node + path, { method: "POST", headers, body: csv });
      return { status: res.status, replayed: res.headers.get("idempotent-replayed") === "true", body: await res.json() };
    },
    async finish(): Promise<unknown> {
      held.socket.write(csv.slice(half));
      const first = await held.response;
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ accepted: rows });
      return first.body;
    },
  };
}

/** The answer to a request whose key another request still holds. */
export function expectInProgress(answer: UploadAnswer): void {
  expect(answer.status).toBe(409);
  expect(answer.body.code).toBe("idempotency_in_progress");
}
