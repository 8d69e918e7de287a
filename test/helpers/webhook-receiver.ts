/** A real HTTP receiver on loopback that records every request and answers as the test says. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export type Responder = (request: ReceivedRequest, index: number) => Response | Promise<Response>;

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  respondWith(responder: Responder): void;
  /** Resolves once `count` requests have arrived (real time). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  stop(): void;
}

export function startReceiver(responder: Responder = () => new Response("ok")): Receiver {
  const requests: ReceivedRequest[] = [];
  let current = responder;
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const received: ReceivedRequest = {
        method: request.method,
        path: new URL(request.url).pathname,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
        at: Date.now(),
      };
      const index = requests.push(received) - 1;
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) waiter.resolve();
      return current(received, index);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    requests,
    respondWith(next) {
      current = next;
    },
    waitFor(count, timeoutMs = 10_000) {
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${requests.length} of ${count} requests`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(requests)) });
      });
    },
    stop() {
      server.stop(true);
    },
  };
}
