import { connect } from "node:net";

export interface RawExchange {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Body bytes written before the answer's head arrived (the server stopped reading at its limit). */
  bytesSent: number;
  /** Whether the server closed the connection after its answer (within half a second of its end). */
  closedByServer: boolean;
}

interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  bodyBytes: number;
  chunked?: boolean;
  /** The byte the body is made of (default "x"), after `prefix`. */
  fill?: string;
  prefix?: string;
}

/**
 * One HTTP/1.1 request on a socket of its own, as a careful client sends it: the body goes out in
 * 64 KiB pieces while the answer is read, and sending stops as soon as an answer's head arrives (as
 * curl and browsers do). Says whether the server then closed the connection.
 */
export function rawRequest(url: string, request: RawRequest): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  const chunk = Buffer.alloc(64 * 1024, request.fill ?? "x");
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let received = Buffer.alloc(0);
    let head: { status: number; headers: Record<string, string>; bodyStart: number } | null = null;
    let body: string | null = null;
    let sent = 0;
    let closeTimer: ReturnType<typeof setTimeout> | undefined;
    const finish = (closedByServer: boolean) => {
      clearTimeout(closeTimer);
      socket.destroy();
      if (head && body !== null) resolve({ status: head.status, headers: head.headers, body, bytesSent: sent, closedByServer });
      else reject(new Error(`no whole answer (sent ${sent} bytes, received ${received.length}: ${received.subarray(0, 300).toString("latin1")})`));
    };
    // Writing on after the server closed ends in EPIPE or a reset: closed all the same.
    socket.on("error", () => finish(true));
    socket.on("close", () => finish(true));
    socket.on("data", (data: Buffer) => {
      received = Buffer.concat([received, data]);
      head ??= parseHead(received);
      if (!head || body !== null) return;
      body = parseBody(received.subarray(head.bodyStart), head.headers);
      if (body !== null) closeTimer = setTimeout(() => finish(false), 500);
    });
    socket.on("connect", async () => {
      const headers: Record<string, string> = { host: `${hostname}:${port}`, ...request.headers };
      if (request.chunked) headers["transfer-encoding"] = "chunked";
      else headers["content-length"] = String(request.bodyBytes);
      socket.write(`${request.method} ${request.path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`);
      const prefix = Buffer.from(request.prefix ?? "");
      let first = true;
      while (sent < request.bodyBytes && !head && !socket.destroyed) {
        const piece = first && prefix.length ? Buffer.concat([prefix, chunk.subarray(prefix.length)]) : chunk;
        first = false;
        const part = piece.subarray(0, Math.min(piece.length, request.bodyBytes - sent));
        const framed = request.chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n")]) : part;
        sent += part.length;
        if (!socket.write(framed)) await new Promise<void>((done) => socket.once("drain", done).once("close", done));
      }
      if (request.chunked && !head && !socket.destroyed) socket.write("0\r\n\r\n");
    });
  });
}

function parseHead(bytes: Buffer): { status: number; headers: Record<string, string>; bodyStart: number } | null {
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1]), headers, bodyStart: end + 4 };
}

/** The whole body once it has arrived (by Content-Length, or chunked up to its last chunk), else null. */
function parseBody(bytes: Buffer, headers: Record<string, string>): string | null {
  if (headers["transfer-encoding"] !== "chunked") {
    const length = Number(headers["content-length"] ?? 0);
    return bytes.length < length ? null : bytes.subarray(0, length).toString("utf8");
  }
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at);
    if (lineEnd < 0) return null;
    const size = parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
    if (size === 0) return Buffer.concat(parts).toString("utf8");
    if (bytes.length < lineEnd + 2 + size + 2) return null;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
