// What a carrier's media socket does once it is open, the same for every streaming kind: wait for
// `start`, hand the socket to the call it names (with that call's single-use token), then feed the
// call every frame. Anything else before `start` closes the socket with 1008.
import type { StreamCodec, StreamSocket } from "./codec.ts";
import type { StreamLeg } from "./leg.ts";
import type { StreamCalls } from "./live-calls.ts";

export interface MediaSocket {
  id: string;
  raw: StreamSocket;
  close(code?: number, reason?: string): void;
}

/**
 * Socket handlers for one kind. `admits` may narrow which connections' calls a socket can claim
 * (those whose secret signed its handshake).
 */
export function mediaSocketHandlers(codec: StreamCodec, calls: StreamCalls) {
  const sockets = new Map<string, { leg: StreamLeg | null; connections: string[] | null }>();
  return {
    /** A socket was accepted; `connections`, when given, are the only ones whose calls it may claim. */
    opened(socket: MediaSocket, connections: string[] | null = null): void {
      sockets.set(socket.id, { leg: null, connections });
    },
    message(socket: MediaSocket, frame: unknown): void {
      const state = sockets.get(socket.id);
      if (!state) return;
      const message = codec.parse(frame);
      if (state.leg) {
        if (message) state.leg.receive(message);
        else state.leg.noteMalformed();
        return;
      }
      if (message?.type === "connected") return;
      if (message?.type !== "start") {
        socket.close(1008, "expected connected, then start");
        return;
      }
      const expected = calls.streams.claim(message.parameters.call_id ?? "", message.parameters.token ?? "");
      if (!expected || (state.connections && !state.connections.includes(expected.connectionId))) {
        socket.close(1008, "the stream names no call waiting for it");
        return;
      }
      state.leg = expected.leg;
      // The raw socket: the server's wrapper would re-encode what the codec already serialised.
      expected.leg.attach(socket.raw, message);
    },
    closed(socket: MediaSocket): void {
      const state = sockets.get(socket.id);
      sockets.delete(socket.id);
      state?.leg?.socketClosed();
    },
  };
}
