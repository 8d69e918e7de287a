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

/** A call arriving from a carrier, before Parley has answered it. */
export interface InboundRequest {
  carrier: string;
  /** The workspace's number that was called (E.164). */
  to: string;
  from: string | null;
  /** Carrier-specific settings kept with the call. */
  carrierOptions: Record<string, unknown> | null;
  /** The simulated carrier may stand in for recognition with the callee's own text. */
  simulatedRecognition: boolean;
}

/**
 * How every carrier hands an inbound call over: one path (the number's agent, its readiness, the
 * call record, the conversation on the leg), written once by the calls feature.
 */
export interface InboundCalls {
  /** Throws a 4xx ApiError when `to` would not be answered now (unknown number, switched off, no agent ready). */
  check(workspaceId: string, request: InboundRequest): void;
  /** Records the call and connects the leg `makeLeg` builds for it to the agent; returns the call id. */
  answer(workspaceId: string, request: InboundRequest, makeLeg: (callId: string) => CallLeg): string;
}
