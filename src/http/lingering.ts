/** How long, and how much, of a refused body is read after the answer before the connection closes. */
const LINGER_MS = 2_000;
const LINGER_IDLE_MS = 250;
const LINGER_BYTES = 64 * 1024 * 1024;

/**
 * An answer to a request whose body was not read to its end (refused at a limit, or before it was
 * read: 401, 404). The connection must close, since the unread bytes cannot be taken for the next
 * request; but closing a socket with unread bytes resets it, and a client still sending then loses the
 * answer with the reset. So the answer is written at once, and the connection is held while the rest of
 * the body is read and dropped, until the client stops sending (idle 250 ms), or for 2 s and 64 MiB at
 * most: nginx's lingering close.
 */
export function lingeringAnswer(text: string, init: { status: number; headers: Record<string, string> }, body: ReadableStream<Uint8Array> | null): Response {
  const headers = { ...init.headers, connection: "close" };
  if (!body || body.locked) return new Response(text, { ...init, headers });
  let answered = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!answered) {
        answered = true;
        return controller.enqueue(new TextEncoder().encode(text));
      }
      await drain(body);
      controller.close();
    },
  });
  return new Response(stream, { ...init, headers });
}

async function drain(body: ReadableStream<Uint8Array>): Promise<void> {
  const reader = body.getReader();
  const until = Date.now() + LINGER_MS;
  let drained = 0;
  try {
    while (drained < LINGER_BYTES && Date.now() < until) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<null>((resolve) => (timer = setTimeout(resolve, Math.min(LINGER_IDLE_MS, until - Date.now()), null)));
      const read = await Promise.race([reader.read(), idle]).finally(() => clearTimeout(timer));
      if (!read || read.done) return;
      drained += read.value.byteLength;
    }
  } catch {
    // The client went away: nothing left to drain.
  }
}
