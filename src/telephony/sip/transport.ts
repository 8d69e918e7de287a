// SIP over UDP and TCP on one port (RFC 3261 §18): datagrams and TCP streams in, each message with
// where it came from; responses go back where the request came from (RFC 3581 symmetric response),
// which is also what a far end behind NAT needs.
import { parseMessage, serialize, SipParseError, SipStreamDecoder, type SipMessage } from "./message.ts";
import { badRequestFor } from "./responses.ts";

export type TransportName = "udp" | "tcp";

/** Where a message came from, or where one goes. */
export interface SipTarget {
  transport: TransportName;
  address: string;
  port: number;
}

export const targetKey = (target: SipTarget) => `${target.transport}:${target.address}:${target.port}`;

type Tcp = Bun.Socket<{ key: string; decoder: SipStreamDecoder; pending: string[] }>;

export interface TransportEvents {
  message(message: SipMessage, source: SipTarget): void;
  /** A message that could not be parsed: refused with 400 when it said enough to answer, else dropped. */
  malformed?(reason: string, source: SipTarget): void;
}

export class SipTransport {
  private readonly streams = new Map<string, Tcp>();
  private closed = false;

  private constructor(
    private readonly udp: Bun.udp.Socket<"buffer">,
    private readonly tcp: Bun.TCPSocketListener<unknown> | null,
    private readonly events: TransportEvents,
  ) {}

  /** Binds UDP (and TCP when asked) on `host:port`; port 0 takes a free one, the same for both. */
  static async open(options: { host: string; port: number; tcp: boolean }, events: TransportEvents): Promise<SipTransport> {
    let transport: SipTransport | null = null;
    const udp = await Bun.udpSocket({
      hostname: options.host,
      port: options.port,
      socket: {
        data: (_socket, data, port, address) => transport?.receive(data, { transport: "udp", address, port }),
        // ICMP errors (a peer's port closed) say nothing a transaction timeout will not: they are not fatal.
        // Bun may report one with no error object at all (seen with a REGISTER to a closed port).
        error: (_socket, error) => events.malformed?.(`UDP: ${(error as Error | undefined)?.message ?? "ICMP error"}`, { transport: "udp", address: options.host, port: options.port }),
      },
    });
    let tcp: Bun.TCPSocketListener<unknown> | null = null;
    if (options.tcp) {
      try {
        tcp = Bun.listen({ hostname: options.host, port: udp.port, socket: streamHandlers(() => transport!) }) as Bun.TCPSocketListener<unknown>;
      } catch (error) {
        udp.close();
        throw error;
      }
    }
    transport = new SipTransport(udp, tcp, events);
    return transport;
  }

  get port(): number {
    return this.udp.port;
  }

  send(message: SipMessage, target: SipTarget): void {
    if (this.closed) return;
    const text = serialize(message);
    if (target.transport === "udp") {
      this.udp.send(text, target.port, target.address);
      return;
    }
    const key = targetKey(target);
    const open = this.streams.get(key);
    if (open) {
      if (open.data.pending.length) open.data.pending.push(text);
      else open.write(text);
      return;
    }
    // A new connection: messages wait in `pending` until it opens.
    const data = { key, decoder: new SipStreamDecoder(), pending: [text] };
    const placeholder = { data, write: () => 0, end() {} } as unknown as Tcp;
    this.streams.set(key, placeholder);
    Bun.connect({ hostname: target.address, port: target.port, data, socket: streamHandlers(() => this) }).catch(() => {
      if (this.streams.get(key) === placeholder) this.streams.delete(key);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.udp.close();
    this.tcp?.stop(true);
    for (const stream of this.streams.values()) stream.end();
    this.streams.clear();
  }

  /** @internal the stream handlers' way in */
  opened(socket: Tcp): void {
    const key = socket.data?.key ?? targetKey({ transport: "tcp", address: socket.remoteAddress, port: remotePort(socket) });
    socket.data ??= { key, decoder: new SipStreamDecoder(), pending: [] };
    socket.data.key = key;
    this.streams.set(key, socket);
    for (const text of socket.data.pending.splice(0)) socket.write(text);
  }

  /** @internal */
  streamData(socket: Tcp, chunk: Uint8Array): void {
    let frames: Uint8Array[];
    try {
      frames = socket.data.decoder.push(chunk);
    } catch (error) {
      // A stream that cannot be framed cannot be resynchronised: it is closed.
      this.events.malformed?.((error as Error).message, sourceOf(socket));
      socket.end();
      return;
    }
    for (const frame of frames) this.receive(frame, sourceOf(socket));
  }

  /** @internal */
  streamClosed(socket: Tcp): void {
    if (this.streams.get(socket.data?.key) === socket) this.streams.delete(socket.data.key);
  }

  private receive(data: Uint8Array, source: SipTarget): void {
    if (this.closed) return;
    // Keep-alives (RFC 5626 CRLF pings) are not messages.
    if (data.length <= 4 && /^[\r\n]*$/.test(new TextDecoder().decode(data))) return;
    let message: SipMessage;
    try {
      message = parseMessage(data);
    } catch (error) {
      if (!(error instanceof SipParseError)) throw error;
      this.events.malformed?.(error.message, source);
      const refusal = badRequestFor(new TextDecoder().decode(data), error.message);
      if (refusal) this.send(refusal, source);
      return;
    }
    this.events.message(message, source);
  }
}

function remotePort(socket: Tcp): number {
  return (socket as unknown as { remotePort?: number }).remotePort ?? 0;
}

function sourceOf(socket: Tcp): SipTarget {
  const [, address, port] = /^tcp:(.*):(\d+)$/.exec(socket.data.key) ?? [];
  return { transport: "tcp", address: address ?? socket.remoteAddress, port: Number(port ?? remotePort(socket)) };
}

function streamHandlers(transport: () => SipTransport): Bun.SocketHandler<any> {
  return {
    open: (socket) => transport().opened(socket as Tcp),
    data: (socket, chunk) => transport().streamData(socket as Tcp, chunk),
    close: (socket) => transport().streamClosed(socket as Tcp),
    error: (socket) => transport().streamClosed(socket as Tcp),
  };
}
