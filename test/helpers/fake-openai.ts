// A local server that speaks the OpenAI HTTP protocol (models, chat completions with SSE streaming
// and tool calls, embeddings), scripted by the test.

export interface ScriptedReply {
  /** Text streamed in these pieces. */
  text?: string[];
  /** Tool calls the model "decides" to make (arguments as an object; streamed in fragments). */
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
  /** Answer with this HTTP status and body instead. */
  fail?: { status: number; body: string };
  delayMs?: number;
  /** Pause between the text pieces (a model that writes slowly); default 1 ms. */
  pieceDelayMs?: number;
}

export interface FakeOpenAI {
  url: string;
  requests: { path: string; headers: Record<string, string>; body: any; at: number }[];
  /** Replies for successive chat completions; the last one repeats. */
  script(replies: ScriptedReply[] | ((body: any, index: number) => ScriptedReply)): void;
  stop(): void;
}

export function startFakeOpenAI(options: { apiKey?: string; dimension?: number } = {}): FakeOpenAI {
  const requests: FakeOpenAI["requests"] = [];
  let scripted: (body: any, index: number) => ScriptedReply = () => ({ text: ["Hello!"] });
  let chatCount = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const body: any = request.method === "POST" ? await request.json().catch(() => null) : null;
      requests.push({ path: url.pathname, headers: Object.fromEntries(request.headers), body, at: Date.now() });
      if (options.apiKey && request.headers.get("authorization") !== `Bearer ${options.apiKey}`) {
        return Response.json({ error: { message: "Incorrect API key provided", type: "invalid_request_error" } }, { status: 401 });
      }
      if (url.pathname === "/v1/models") return Response.json({ object: "list", data: [{ id: "fake-chat", object: "model" }, { id: "fake-embed", object: "model" }] });
      if (url.pathname === "/v1/embeddings") {
        const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
        return Response.json({ object: "list", model: body.model, data: inputs.map((text, index) => ({ object: "embedding", index, embedding: hashEmbedding(text, options.dimension ?? 64) })) });
      }
      if (url.pathname === "/v1/chat/completions") {
        const reply = scripted(body, chatCount++);
        if (reply.delayMs) await Bun.sleep(reply.delayMs);
        if (reply.fail) return new Response(reply.fail.body, { status: reply.fail.status });
        return new Response(sse(reply), { headers: { "content-type": "text/event-stream" } });
      }
      return new Response("not found", { status: 404 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    script(replies) {
      chatCount = 0;
      scripted = typeof replies === "function" ? replies : (_body, index) => replies[Math.min(index, replies.length - 1)];
    },
    stop: () => server.stop(true),
  };
}

function sse(reply: ScriptedReply): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const event = (delta: Record<string, unknown>, finish: string | null = null) =>
    encoder.encode(`data: ${JSON.stringify({ id: "chatcmpl-test", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
  return new ReadableStream({
    async start(controller) {
      controller.enqueue(event({ role: "assistant", content: "" }));
      for (const piece of reply.text ?? []) {
        controller.enqueue(event({ content: piece }));
        await Bun.sleep(reply.pieceDelayMs ?? 1);
      }
      (reply.toolCalls ?? []).forEach((call, index) => {
        const args = JSON.stringify(call.arguments);
        const half = Math.floor(args.length / 2);
        // Split like real servers do: id and name first, the arguments in fragments.
        controller.enqueue(event({ tool_calls: [{ index, id: `call_${index}`, type: "function", function: { name: call.name, arguments: args.slice(0, half) } }] }));
        controller.enqueue(event({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
      });
      controller.enqueue(event({}, reply.toolCalls?.length ? "tool_calls" : "stop"));
      controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      controller.close();
    },
  });
}

/** Deterministic bag-of-words vector: texts sharing words are close, as a real embedder would place them. */
export function hashEmbedding(text: string, dimension: number): number[] {
  const vector = new Array(dimension).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let hash = 2166136261;
    for (const char of word) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
    vector[Math.abs(hash) % dimension] += 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((v) => v / norm);
}
