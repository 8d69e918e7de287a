// Carriers behind one interface: the conversation loop drives a CallLeg and never knows whether the
// other end is the simulator, Twilio Media Streams, a SIP trunk or a browser.

export type AudioEncoding = "pcmu" | "pcma" | "l16";

/** Frames on a leg are always 20 ms of this encoding and rate. */
export interface MediaFormat {
  encoding: AudioEncoding;
  sampleRate: number;
}

export type LegEndReason = "busy" | "no_answer" | "remote_hangup" | "failed" | "rejected" | "transferred" | "local_hangup";

export type LegEvent = { type: "ringing" } | { type: "answered" } | { type: "ended"; reason: LegEndReason; detail?: string };

export interface CallLeg {
  readonly format: MediaFormat;
  /** The caller's audio, one 20 ms frame at a time, in `format`. */
  onAudio(handler: (frame: Uint8Array) => void): void;
  /** Keys signalled out of band (RFC 4733, Twilio `dtmf`); in-band tones are detected from the audio. */
  onDtmf(handler: (digit: string) => void): void;
  onEvent(handler: (event: LegEvent) => void): void;
  /** One 20 ms frame to the caller. The session paces these in real time. */
  sendAudio(frame: Uint8Array): void;
  /** Drops audio the carrier buffered but did not play yet (barge-in). */
  clearAudio(): void;
  sendDtmf(digits: string): void;
  transfer(to: string): Promise<void>;
  hangup(): void;
}

export interface DialRequest {
  callId: string;
  from: string;
  to: string;
  /** Carrier-specific settings (the simulated callee's behaviour, for instance). */
  options: Record<string, unknown>;
}

export interface Carrier {
  readonly id: string;
  /** Starts an outbound call; the leg reports ringing, then answered or ended. */
  dial(request: DialRequest): CallLeg;
}
