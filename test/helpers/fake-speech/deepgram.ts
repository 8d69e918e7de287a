// A local server speaking Deepgram's live transcription WebSocket (`/v1/listen`): `Token` auth checked
// at the handshake (401 + dg-error like the real one), the query read for encoding and rate, binary
// audio counted in milliseconds, `Results` messages (interim and final, `speech_final`,
// `from_finalize`), `Finalize` / `CloseStream` / `KeepAlive` handled, a closing `Metadata` message,
// and the documented close codes (1000 after CloseStream, 1011 NET-0001 when idle).
//
// It "hears" a script: segments spoken one after another, `segmentMs` of audio each. Within a segment
// interim results reveal its words as audio accumulates (over the segment's speech when the script
// says how long that is, then the pause after it; else over the whole segment); crossing into the next
// segment finalises the previous one (is_final + speech_final); Finalize finalises the segment in progress.

import type { ServerWebSocket } from "bun";

export interface DeepgramConfig {
  /**
   * What the fake hears; a function picks per connection (it sees the query, e.g. language), and may
   * give that connection its own segment lengths, one for all or one each (a caller whose words take a
   * known time), and how much of each is speech (`speechMs`, from its start; the rest is the pause
   * after it): interims then show all the segment's words once its speech is heard, as Deepgram's
   * cover the words spoken so far, while the segment still ends (is final) after its pause.
   */
  script: string | string[] | ((connection: DeepgramConnection) => string | string[] | TimedScript);
  /** Milliseconds of audio each script segment takes. */
  segmentMs: number;
  /** Milliseconds of audio between two interim results (when `interim_results=true`). */
  interimEveryMs: number;
  /** Delay before answering Finalize and CloseStream. */
  finalizeDelayMs: number;
  /** Never answer Finalize or CloseStream (time-out tests). */
  ignoreFinalize: boolean;
  /** No audio or text for this long closes with 1011 NET-0001 (Deepgram's is 10 s). */
  idleTimeoutMs: number;
  /** Refuse handshakes with this status. */
  rejectHandshake: { status: number; message: string } | null;
}

export interface TimedScript {
  segments: string[];
  segmentMs: number | number[];
  speechMs?: number[];
}

export interface DeepgramHandshake {
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  status: number;
  at: number;
}

export interface DeepgramConnection {
  requestId: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  openedAt: number;
  audioBytes: number;
  audioFrames: number;
  /** Text messages from the client, parsed (KeepAlive, Finalize, CloseStream…), in order. */
  controls: { type: string; at: number }[];
  /** Every message sent to the client, parsed. */
  sent: any[];
  closed: { code: number; reason: string; by: "server" | "client"; at: number } | null;
}

export interface FakeDeepgram {
  /** The http:// base a Deepgram connection stores; the client derives ws:// from it. */
  url: string;
  handshakes: DeepgramHandshake[];
  connections: DeepgramConnection[];
  configure(config: Partial<DeepgramConfig>): void;
  /** Shorthand for configure({ script }). */
  hear(script: DeepgramConfig["script"]): void;
  /** Resolves once the connection (the latest by default) has closed. */
  waitForClose(connection?: DeepgramConnection, timeoutMs?: number): Promise<NonNullable<DeepgramConnection["closed"]>>;
  stop(): void;
}

const DEFAULTS: DeepgramConfig = { script: "hello world", segmentMs: 1000, interimEveryMs: 200, finalizeDelayMs: 0, ignoreFinalize: false, idleTimeoutMs: 10_000, rejectHandshake: null };

interface SocketState {
  connection: DeepgramConnection;
  segments: string[];
  bytesPerMs: number;
  /** Where each segment ends (ms of audio), when this connection's script gave its own lengths (else every `segmentMs` of the config). */
  segmentEnds: number[] | null;
  /** How much of each segment is speech, when the script says (else all of it). */
  speechMs: number[] | null;
  segmentIndex: number;
  /** Audio ms already covered by final results. */
  finalizedMs: number;
  lastInterimMs: number;
  idle: ReturnType<typeof setTimeout> | null;
  closing: boolean;
}

export function startFakeDeepgram(options: { apiKey?: string } = {}): FakeDeepgram {
  const handshakes: DeepgramHandshake[] = [];
  const connections: DeepgramConnection[] = [];
  let config: DeepgramConfig = { ...DEFAULTS };
  const closeWaiters: { connection: DeepgramConnection; resolve: () => void }[] = [];

  const noteClosed = (state: SocketState, code: number, reason: string, by: "server" | "client") => {
    if (state.idle) clearTimeout(state.idle);
    state.connection.closed ??= { code, reason, by, at: Date.now() };
    for (const waiter of closeWaiters.filter((w) => w.connection === state.connection)) waiter.resolve();
  };

  const send = (ws: ServerWebSocket<SocketState>, message: Record<string, unknown>) => {
    if (ws.readyState !== 1) return;
    ws.data.connection.sent.push(message);
    ws.send(JSON.stringify(message));
  };

  const closeBy = (ws: ServerWebSocket<SocketState>, code: number, reason: string) => {
    if (ws.data.closing) return;
    ws.data.closing = true;
    noteClosed(ws.data, code, reason, "server");
    ws.close(code, reason);
  };

  const touch = (ws: ServerWebSocket<SocketState>) => {
    if (ws.data.idle) clearTimeout(ws.data.idle);
    ws.data.idle = setTimeout(() => closeBy(ws, 1011, "NET-0001"), config.idleTimeoutMs);
  };

  const heardMs = (state: SocketState) => state.connection.audioBytes / state.bytesPerMs;

  const results = (state: SocketState, text: string, flags: { isFinal: boolean; speechFinal?: boolean; fromFinalize?: boolean }, start: number, end: number) => {
    const words = text.split(/\s+/).filter(Boolean);
    const span = Math.max(0.001, (end - start) / 1000);
    return {
      type: "Results",
      channel_index: [0, 1],
      duration: span,
      start: start / 1000,
      is_final: flags.isFinal,
      speech_final: flags.speechFinal ?? false,
      channel: {
        alternatives: [
          {
            transcript: text,
            confidence: text ? 0.98 : 0,
            words: words.map((word, i) => ({
              word: word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ""),
              start: start / 1000 + (i * span) / words.length,
              end: start / 1000 + ((i + 1) * span) / words.length,
              confidence: 0.98,
              punctuated_word: word,
            })),
          },
        ],
      },
      metadata: { request_id: state.connection.requestId, model_info: { name: `general-${state.connection.query.model ?? "nova-3"}`, version: "2025-01-01.0", arch: state.connection.query.model ?? "nova-3" }, model_uuid: "00000000-0000-4000-8000-000000000001" },
      from_finalize: flags.fromFinalize ?? false,
    };
  };

  /** The segment in progress as a final result; nothing when no audio arrived since the last final. */
  const finalizeCurrent = (ws: ServerWebSocket<SocketState>, fromFinalize: boolean) => {
    const state = ws.data;
    const heard = heardMs(state);
    if (heard <= state.finalizedMs) return;
    const text = state.segments[state.segmentIndex] ?? "";
    send(ws, results(state, text, { isFinal: true, speechFinal: false, fromFinalize }, state.finalizedMs, heard));
    state.finalizedMs = heard;
    state.segmentIndex++;
    state.lastInterimMs = heard;
  };

  const audio = (ws: ServerWebSocket<SocketState>, bytes: number) => {
    const state = ws.data;
    state.connection.audioBytes += bytes;
    state.connection.audioFrames++;
    const heard = heardMs(state);
    const segmentEnd = (index: number) => state.segmentEnds?.[index] ?? (index + 1) * config.segmentMs;
    // Segments the audio has moved past are final, with an endpoint.
    while (state.segmentIndex < state.segments.length - 1 && heard >= segmentEnd(state.segmentIndex)) {
      const end = segmentEnd(state.segmentIndex);
      send(ws, results(state, state.segments[state.segmentIndex], { isFinal: true, speechFinal: true }, state.finalizedMs, end));
      state.finalizedMs = end;
      state.segmentIndex++;
      state.lastInterimMs = end;
    }
    if (state.connection.query.interim_results !== "true" || state.segmentIndex >= state.segments.length) return;
    if (heard - state.lastInterimMs < config.interimEveryMs) return;
    state.lastInterimMs = heard;
    const words = state.segments[state.segmentIndex].split(/\s+/).filter(Boolean);
    const segmentStart = state.segmentIndex ? segmentEnd(state.segmentIndex - 1) : 0;
    const speech = state.speechMs?.[state.segmentIndex] ?? segmentEnd(state.segmentIndex) - segmentStart;
    const fraction = Math.min(1, (heard - segmentStart) / Math.max(1, speech));
    const shown = words.slice(0, Math.max(1, Math.ceil(fraction * words.length))).join(" ");
    send(ws, results(state, shown, { isFinal: false }, state.finalizedMs, heard));
  };

  const control = async (ws: ServerWebSocket<SocketState>, type: string) => {
    if (type === "KeepAlive") return;
    if (type !== "Finalize" && type !== "CloseStream") return;
    if (config.ignoreFinalize) return;
    if (config.finalizeDelayMs) await Bun.sleep(config.finalizeDelayMs);
    if (ws.data.closing) return;
    if (type === "Finalize") return finalizeCurrent(ws, true);
    finalizeCurrent(ws, false);
    const state = ws.data;
    send(ws, {
      type: "Metadata",
      transaction_key: "deprecated",
      request_id: state.connection.requestId,
      sha256: new Bun.CryptoHasher("sha256").update(String(state.connection.audioBytes)).digest("hex"),
      created: new Date(state.connection.openedAt).toISOString(),
      duration: heardMs(state) / 1000,
      channels: Number(state.connection.query.channels ?? 1),
    });
    closeBy(ws, 1000, "");
  };

  const server = Bun.serve<SocketState, never>({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request, srv) {
      const url = new URL(request.url);
      const query = Object.fromEntries(url.searchParams);
      const headers = Object.fromEntries(request.headers);
      const refuse = (status: number, code: string, message: string) => {
        handshakes.push({ path: url.pathname, query, headers, status, at: Date.now() });
        const requestId = crypto.randomUUID();
        return Response.json({ err_code: code, err_msg: message, request_id: requestId }, { status, headers: { "dg-error": message, "dg-request-id": requestId } });
      };
      if (url.pathname !== "/v1/listen") return refuse(404, "NOT_FOUND", `No route for ${url.pathname}`);
      if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return refuse(400, "Bad Request", "Expected a WebSocket upgrade");
      const auth = request.headers.get("authorization") ?? "";
      if (options.apiKey !== undefined && auth !== `Token ${options.apiKey}`) return refuse(401, "INVALID_AUTH", "Invalid credentials.");
      if (config.rejectHandshake) return refuse(config.rejectHandshake.status, "REJECTED", config.rejectHandshake.message);
      if (query.encoding && query.encoding !== "linear16") return refuse(400, "Bad Request", `This fake only decodes linear16, not ${query.encoding}.`);
      if (query.encoding && !query.sample_rate) return refuse(400, "Bad Request", "sample_rate must be specified when encoding is set.");
      const sampleRate = Number(query.sample_rate ?? 16000);
      const channels = Number(query.channels ?? 1);
      if (!Number.isInteger(sampleRate) || sampleRate < 8000 || sampleRate > 48000) return refuse(400, "Bad Request", `Invalid sample_rate ${query.sample_rate}.`);
      const connection: DeepgramConnection = { requestId: crypto.randomUUID(), query, headers, openedAt: Date.now(), audioBytes: 0, audioFrames: 0, controls: [], sent: [], closed: null };
      const scripted = typeof config.script === "function" ? config.script(connection) : config.script;
      const timed = typeof scripted === "object" && !Array.isArray(scripted) ? scripted : null;
      const said: string | string[] = timed ? timed.segments : (scripted as string | string[]);
      const segments = (Array.isArray(said) ? said : [said]).filter((s) => s.trim());
      const lengths = timed ? segments.map((_, i) => (Array.isArray(timed.segmentMs) ? timed.segmentMs[i] : timed.segmentMs)) : null;
      const segmentEnds = lengths?.map((_, i) => lengths.slice(0, i + 1).reduce((sum, ms) => sum + ms, 0)) ?? null;
      const speechMs = timed?.speechMs ?? null;
      const state: SocketState = { connection, segments, bytesPerMs: (sampleRate * 2 * channels) / 1000, segmentEnds, speechMs, segmentIndex: 0, finalizedMs: 0, lastInterimMs: 0, idle: null, closing: false };
      if (!srv.upgrade(request, { data: state, headers: { "dg-request-id": connection.requestId } })) return refuse(400, "Bad Request", "WebSocket upgrade failed");
      handshakes.push({ path: url.pathname, query, headers, status: 101, at: Date.now() });
      connections.push(connection);
      return undefined;
    },
    websocket: {
      open(ws) {
        touch(ws);
      },
      message(ws, message) {
        if (ws.data.closing) return;
        touch(ws);
        if (typeof message !== "string") {
          // An empty binary frame is Deepgram's legacy "close stream" signal.
          if (message.byteLength === 0) return void control(ws, "CloseStream");
          return audio(ws, message.byteLength);
        }
        let parsed: { type?: string };
        try {
          parsed = JSON.parse(message);
        } catch {
          return closeBy(ws, 1008, "DATA-0000");
        }
        ws.data.connection.controls.push({ type: String(parsed.type), at: Date.now() });
        void control(ws, String(parsed.type));
      },
      close(ws, code, reason) {
        noteClosed(ws.data, code, reason, "client");
      },
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    handshakes,
    connections,
    configure(next) {
      config = { ...config, ...next };
    },
    hear(script) {
      config = { ...config, script };
    },
    waitForClose(connection = connections[connections.length - 1], timeoutMs = 5_000) {
      if (!connection) return Promise.reject(new Error("no Deepgram connection yet"));
      if (connection.closed) return Promise.resolve(connection.closed);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("the Deepgram connection did not close")), timeoutMs);
        closeWaiters.push({ connection, resolve: () => (clearTimeout(timer), resolve(connection.closed!)) });
      });
    },
    stop: () => server.stop(true),
  };
}
