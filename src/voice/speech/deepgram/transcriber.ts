import type { ProviderConnection } from "../../../providers/connection.ts";
import { speechErrorFrom } from "../openai/provider-errors.ts";
import { SpeechProviderError, type RecognitionOptions, type RecognitionSession, type SpeechToText, type Transcript } from "../types.ts";
import { openCheckedWebSocket } from "../../../net/outbound-socket.ts";

export interface DeepgramTranscriberOptions {
  /** `nova-3` unless the agent (RecognitionOptions.model) or this option names another. */
  model?: string;
  /** Silence (ms) after which Deepgram marks `speech_final`; false turns it off. Parley's own VAD ends turns. */
  endpointingMs?: number | false;
  /** Deepgram's punctuation and capitalisation (default on). */
  punctuate?: boolean;
  /** Time for the WebSocket handshake. */
  connectTimeoutMs?: number;
  /** Time finish() waits for the final transcript. */
  finalizeTimeoutMs?: number;
  /** A KeepAlive goes out when no audio was sent for this long; Deepgram closes idle sockets after 10 s. */
  keepAliveMs?: number;
}

/** Audio kept while the socket opens (about 30 s at 16 kHz); beyond it the oldest goes. */
const MAX_PENDING_BYTES = 1024 * 1024;

/**
 * Streaming recognition over Deepgram's live WebSocket (`{base}/v1/listen`): audio goes out as binary
 * frames while the caller speaks, interim hypotheses come back to onPartial, and finish() flushes with
 * Finalize and CloseStream and resolves with the final segments joined.
 */
export class DeepgramTranscriber implements SpeechToText {
  readonly id: string;
  readonly punctuates: boolean;

  constructor(
    private readonly connection: ProviderConnection,
    private readonly options: DeepgramTranscriberOptions = {},
  ) {
    this.id = `deepgram:${connection.id}`;
    this.punctuates = options.punctuate ?? true;
  }

  start(options: RecognitionOptions): RecognitionSession {
    return new DeepgramSession(this.connection, this.options, options);
  }
}

/** The listen URL, with the query Deepgram reads its settings from. */
export function listenUrl(connection: ProviderConnection, settings: DeepgramTranscriberOptions, options: RecognitionOptions): string {
  const query = new URLSearchParams({
    encoding: "linear16",
    sample_rate: String(options.sampleRate),
    channels: "1",
    model: options.model ?? settings.model ?? "nova-3",
    language: options.language,
    interim_results: "true",
    endpointing: settings.endpointingMs === false ? "false" : String(settings.endpointingMs ?? 300),
    punctuate: String(settings.punctuate ?? true),
  });
  return `${connection.baseUrl}/v1/listen?${query}`;
}

type SessionState = "connecting" | "open" | "finishing" | "done" | "failed" | "aborted";

/** Deepgram's `Results` message, the parts read here. */
interface ResultsMessage {
  type: "Results";
  is_final?: boolean;
  speech_final?: boolean;
  from_finalize?: boolean;
  channel?: { alternatives?: { transcript?: string; confidence?: number }[] };
}

class DeepgramSession implements RecognitionSession {
  onPartial?: (text: string) => void;

  private state: SessionState = "connecting";
  private socket: WebSocket | null = null;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private finals: string[] = [];
  private confidences: number[] = [];
  private interim = "";
  private lastPartial = "";
  private failure: SpeechProviderError | null = null;
  private handshakeError = "";
  private opened = false;
  private lastSentAt = 0;
  private timers: ReturnType<typeof setTimeout>[] = [];
  private keepAlive: ReturnType<typeof setInterval> | null = null;
  private settle: { resolve: (t: Transcript) => void; reject: (e: SpeechProviderError) => void } | null = null;
  private finishing: Promise<Transcript> | null = null;
  private readonly removeAbortListener: () => void;

  constructor(
    private readonly connection: ProviderConnection,
    private readonly settings: DeepgramTranscriberOptions,
    private readonly options: RecognitionOptions,
  ) {
    const onAbort = () => this.abort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    this.removeAbortListener = () => options.signal?.removeEventListener("abort", onAbort);
    if (options.signal?.aborted) {
      this.abort();
      return;
    }
    void this.connect();
  }

  write(pcm: Int16Array): void {
    // An empty binary frame is Deepgram's old close signal, so none is ever sent.
    if (pcm.length === 0 || (this.state !== "connecting" && this.state !== "open")) return;
    const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength).slice();
    if (this.state === "open") return this.send(bytes);
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    while (this.pendingBytes > MAX_PENDING_BYTES) this.pendingBytes -= this.pending.shift()!.length;
  }

  finish(): Promise<Transcript> {
    if (this.finishing) return this.finishing;
    if (this.state === "aborted") return (this.finishing = Promise.reject(new SpeechProviderError("Deepgram: recognition aborted")));
    if (this.failure) return (this.finishing = Promise.reject(this.failure));
    this.finishing = new Promise<Transcript>((resolve, reject) => (this.settle = { resolve, reject }));
    // A caller that abandons the turn (barge-in, hang-up) and aborts need not await the rejection.
    this.finishing.catch(() => {});
    const wasOpen = this.state === "open";
    this.state = "finishing";
    const timeoutMs = this.settings.finalizeTimeoutMs ?? 10_000;
    this.timers.push(setTimeout(() => this.fail(new SpeechProviderError(`Deepgram: no final transcript within ${timeoutMs / 1000} s`)), timeoutMs));
    if (wasOpen) this.flushAndClose();
    return this.finishing;
  }

  abort(): void {
    if (this.state === "done" || this.state === "aborted") return;
    this.state = "aborted";
    this.settle?.reject(new SpeechProviderError("Deepgram: recognition aborted"));
    this.cleanup();
  }

  private async connect(): Promise<void> {
    const connectTimeoutMs = this.settings.connectTimeoutMs ?? 10_000;
    this.timers.push(setTimeout(() => (this.opened ? undefined : this.fail(new SpeechProviderError(`Deepgram: no connection within ${connectTimeoutMs / 1000} s`))), connectTimeoutMs));
    let socket: WebSocket;
    try {
      const headers = { authorization: `Token ${this.connection.apiKey ?? ""}` };
      socket = await openCheckedWebSocket(listenUrl(this.connection, this.settings, this.options), headers, this.connection.policy);
    } catch (error) {
      this.fail(speechErrorFrom(error, "Deepgram"));
      return;
    }
    if (this.state === "aborted" || this.state === "failed" || this.state === "done") {
      socket.close(1000);
      return;
    }
    this.socket = socket;
    socket.binaryType = "arraybuffer";
    socket.onopen = () => this.open();
    socket.onmessage = (event) => this.received(event.data);
    socket.onerror = (event) => (this.handshakeError = (event as ErrorEvent).message ?? "");
    socket.onclose = (event) => this.closed(event.code, event.reason);
  }

  private open(): void {
    this.opened = true;
    for (const bytes of this.pending) this.send(bytes);
    this.pending = [];
    this.pendingBytes = 0;
    const keepAliveMs = this.settings.keepAliveMs ?? 3_000;
    this.keepAlive = setInterval(() => {
      if (performance.now() - this.lastSentAt >= keepAliveMs) this.sendText({ type: "KeepAlive" });
    }, keepAliveMs);
    if (this.state === "connecting") this.state = "open";
    else if (this.state === "finishing") this.flushAndClose();
  }

  /** Finalize flushes what Deepgram still holds (answered with `from_finalize`); CloseStream then ends the stream with Metadata and a close. */
  private flushAndClose(): void {
    this.sendText({ type: "Finalize" });
    this.sendText({ type: "CloseStream" });
  }

  private received(data: unknown): void {
    if (typeof data !== "string") return;
    let message: { type?: string } & Record<string, unknown>;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (message.type === "Results") this.result(message as unknown as ResultsMessage);
    else if (message.type === "Metadata" && this.state === "finishing") this.complete();
    else if (message.type === "Error") this.fail(new SpeechProviderError(`Deepgram: ${String(message.description ?? message.message ?? "error")}`));
  }

  private result(message: ResultsMessage): void {
    const alternative = message.channel?.alternatives?.[0];
    const transcript = (alternative?.transcript ?? "").trim();
    if (message.is_final) {
      if (transcript) {
        this.finals.push(transcript);
        if (typeof alternative?.confidence === "number") this.confidences.push(alternative.confidence);
      }
      this.interim = "";
    } else {
      this.interim = transcript;
    }
    const hypothesis = [...this.finals, this.interim].filter(Boolean).join(" ");
    if (hypothesis && hypothesis !== this.lastPartial && this.state !== "done") {
      this.lastPartial = hypothesis;
      try {
        this.onPartial?.(hypothesis);
      } catch {
        // A listener's bug must not break recognition.
      }
    }
    if (message.from_finalize && this.state === "finishing") this.complete();
  }

  private closed(code: number, reason: string): void {
    this.socket = null;
    if (this.state === "finishing" && code === 1000) return this.complete();
    if (this.state === "done" || this.state === "aborted" || this.state === "failed") return this.cleanup();
    const status = /status code:?\s*(\d{3})/i.exec(this.handshakeError)?.[1];
    if (status) {
      const hint = status === "401" || status === "403" ? " (check the API key)" : status === "400" ? " (a listen parameter was not accepted)" : "";
      this.fail(new SpeechProviderError(`Deepgram refused the connection: HTTP ${status}${hint}`, Number(status)));
    } else {
      const detail = describeClose(reason) || (this.handshakeError ? ` (${this.handshakeError})` : "");
      this.fail(new SpeechProviderError(`Deepgram closed the stream: ${code}${reason ? ` ${reason}` : ""}${detail}`));
    }
  }

  private complete(): void {
    if (this.state !== "finishing") return;
    this.state = "done";
    const confidence = this.confidences.length ? this.confidences.reduce((a, b) => a + b, 0) / this.confidences.length : null;
    this.settle?.resolve({ text: this.finals.join(" ").trim(), confidence });
    this.cleanup();
  }

  private fail(error: SpeechProviderError): void {
    if (this.state === "done" || this.state === "aborted" || this.state === "failed") return;
    this.state = "failed";
    this.failure = error;
    this.settle?.reject(error);
    this.cleanup();
  }

  private cleanup(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = null;
    this.pending = [];
    this.removeAbortListener();
    const socket = this.socket;
    this.socket = null;
    if (socket && (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING)) socket.close(1000);
  }

  private send(bytes: Uint8Array): void {
    if (this.socket?.readyState !== WebSocket.OPEN) return;
    this.socket.send(bytes);
    this.lastSentAt = performance.now();
  }

  private sendText(message: Record<string, unknown>): void {
    if (this.socket?.readyState !== WebSocket.OPEN) return;
    this.socket.send(JSON.stringify(message));
    this.lastSentAt = performance.now();
  }
}

/** What Deepgram's documented close payloads mean, for the person reading the error. */
function describeClose(reason: string): string {
  if (reason.startsWith("DATA-0000")) return " (the audio could not be decoded; check encoding and sample rate)";
  if (reason.startsWith("NET-0000")) return " (Deepgram sent nothing within its time-out)";
  if (reason.startsWith("NET-0001")) return " (Deepgram received no audio or KeepAlive for 10 s)";
  return "";
}
