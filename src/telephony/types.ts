// Carriers behind one interface: the conversation loop drives a CallLeg and never knows whether the
// other end is the simulator, Twilio Media Streams, a SIP trunk or a browser.

export type AudioEncoding = "pcmu" | "pcma" | "l16";

/** Frames on a leg are always 20 ms of this encoding and rate. */
export interface MediaFormat {
  encoding: AudioEncoding;
  sampleRate: number;
}

export type LegEndReason = "busy" | "no_answer" | "remote_hangup" | "failed" | "rejected" | "transferred" | "local_hangup";

export type LegEvent =
  | { type: "ringing" }
  | { type: "answered" }
  /** `code`: the call's end reason when the leg knows better than its kind (a browser's `protocol_error`). */
  | { type: "ended"; reason: LegEndReason; detail?: string; code?: string }
  /** The carrier's own id for the call (Twilio CallSid, Telnyx call_control_id), for support and logs. */
  | { type: "carrier_call"; id: string }
  /** The carrier's answering-machine detection spoke (Twilio AnsweredBy, Telnyx machine detection). */
  | { type: "answered_by"; verdict: "human" | "machine" }
  /** How the media went, as the leg measured it (RTP counters, the far end's RTCP reports), said once as the call ends. */
  | { type: "media_report"; report: Record<string, unknown> };

/** The caller's frames as the leg received them so far: how many came, never came (lost), or came late. */
export interface MediaCounts {
  /** `rtp` (SIP trunks) or `websocket` (carriers' media streams, browsers). */
  transport: "rtp" | "websocket";
  received: number;
  lost: number;
  late: number;
}

export interface CallLeg {
  readonly format: MediaFormat;
  /** Counted by legs whose media crosses a network (the simulated carrier's does not). */
  mediaCounts?(): MediaCounts;
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
  /** `reason`: the call's end reason, for a far end that can show it (a browser). */
  hangup(reason?: string): void;
  /** What was said, as text, for a far end that can show it (a browser's transcript); phone lines have no use for it. */
  caption?(role: "caller" | "agent", text: string): void;
}

export interface DialRequest {
  callId: string;
  from: string;
  to: string;
  /** Carrier-specific settings (the simulated callee's behaviour, for instance). */
  options: Record<string, unknown>;
}

/** A number a carrier offers for sale. */
export interface AvailableNumber {
  number: string;
  /** Where it rings (`US 415`), when the carrier says. */
  region: string | null;
}

/** Whether Parley already has a number (on any workspace): carriers with a shared range skip those. */
export type NumberTaken = (number: string) => boolean;

/** A carrier's numbers, as far as its API goes. Errors are ApiErrors naming the field at fault. */
export interface NumberInventory {
  search(query: { areaCode?: string; contains?: string; limit: number }, taken: NumberTaken): Promise<AvailableNumber[]>;
  /** Buys the number asked for, or the first free one in the area code; resolves to the E.164 number bought. */
  buy(request: { number?: string; areaCode?: string }, taken: NumberTaken): Promise<string>;
  /** Bring your own number: confirms the account really has it and points its calls at Parley. */
  adopt(number: string): Promise<void>;
  /** Gives a bought number back to the carrier; an imported one is only detached from Parley (the account keeps it). */
  release(number: string, origin: "bought" | "imported"): Promise<void>;
}

/** A carrier connection made live: what the calls and numbers features drive. */
export interface Carrier {
  readonly connectionId: string;
  readonly kind: string;
  /** Starts an outbound call; the leg reports ringing, then answered or ended. */
  dial(request: DialRequest): CallLeg;
  readonly numbers: NumberInventory;
  /**
   * Carrier-specific settings an outbound call may carry (the `simulation` block): a field error
   * saying what is wrong with them, or null when they are fine. Carriers that take none refuse any.
   */
  checkDialOptions(options: Record<string, unknown>): { field: string; message: string } | null;
  /** Whether the far end's own words may stand in for speech recognition (a scripted caller or callee). */
  scriptedRecognition(direction: "inbound" | "outbound", options: Record<string, unknown> | null): boolean;
  /** How the connection is doing, for its API resource (a trunk registered, a port that failed to bind). */
  status(): CarrierStatus;
  /** Lets go of sockets and timers when the connection changes or the server stops. */
  close(): void;
}

export interface CarrierStatus {
  state: "ready" | "starting" | "listening" | "registering" | "registered" | "unreachable" | "failed";
  detail: string | null;
  /** The port a carrier that listens (a SIP trunk) has bound: the one the OS chose when asked for 0. */
  listenPort?: number;
}

/** A carrier connection as the carrier code sees it: credentials unsealed. */
export interface CarrierConnection {
  id: string;
  workspaceId: string;
  name: string;
  kind: string;
  settings: Record<string, unknown>;
  credentials: Record<string, string>;
  updatedAt: number;
}

/** A call arriving from a carrier, before Parley has answered it. */
export interface InboundRequest {
  /** The kind of carrier it arrived on (`simulated`, `sip`, …); the number must be on a connection of that kind. */
  kind: string;
  /** The connection it arrived on, when the carrier knows: the number must be on that one. */
  connectionId?: string;
  /** The workspace's number that was called (E.164). */
  to: string;
  from: string | null;
  /** Carrier-specific settings kept with the call. */
  carrierOptions: Record<string, unknown> | null;
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

/** A browser voice session about to start: the agent it talks to, and what the token carried. */
export interface WebCallRequest {
  agentId: string;
  variables: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** How a browser session becomes a call: recorded, then its leg handed to the agent like any carrier's. */
export interface WebCalls {
  answer(workspaceId: string, request: WebCallRequest, makeLeg: (callId: string) => CallLeg): string;
}
