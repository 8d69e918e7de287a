// How a call reads on screen: its status, whether it is still live, its length, and who it was with.
import type { Call } from "../../../sdk/ts/src/index.ts";

export const CALL_STATUSES: Call["status"][] = ["queued", "ringing", "in_progress", "completed", "transferred", "failed", "no_answer", "busy", "canceled"];
const LIVE: Call["status"][] = ["queued", "ringing", "in_progress"];

export const isLive = (call: Pick<Call, "status">): boolean => LIVE.includes(call.status);

export const statusLabel = (status: Call["status"]): string => (status === "in_progress" ? "in progress" : status.replace("_", " "));

/** `1:05`, `1:02:09`: a length in milliseconds as a clock shows it. */
export function formatClock(ms: number | null): string {
  if (ms === null) return "—";
  const total = Math.max(0, Math.round(ms / 1000));
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const pad = (n: number) => String(n).padStart(2, "0");
  return h ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** The other party: the number called (outbound) or calling (inbound), or the browser for web calls. */
export function counterpart(call: Call): string {
  if (call.direction === "web") return "Browser";
  return (call.direction === "outbound" ? call.to : call.from) ?? "Unknown number";
}

/** `-0:01`, `0:07`: a time on the call's clock, which may fall before its zero (ringing before the answer). */
export function formatOffset(ms: number): string {
  return ms < 0 && Math.round(-ms / 1000) > 0 ? `−${formatClock(-ms)}` : formatClock(ms);
}

const END_REASONS: Record<string, string> = {
  agent_hangup: "the agent hung up",
  customer_hangup: "the caller hung up",
  silence_timeout: "nobody spoke for too long",
  max_duration: "it reached the agent's longest call",
  voicemail: "an answering machine took it",
  transferred: "passed on to another number",
  no_answer: "nobody answered",
  busy: "the line was busy",
  rejected: "the call was refused",
  failed: "the carrier could not connect it",
  error: "an error ended it",
  protocol_error: "the browser sent something invalid",
  server_shutdown: "the server stopped",
};

/** Why a call ended, in words (`agent_hangup` → "the agent hung up"); an unknown code with spaces. */
export const endReasonText = (reason: string): string => END_REASONS[reason] ?? reason.replace(/_/g, " ");
