// Responses to requests (RFC 3261 §8.2.6): the dialog-identifying headers copied, a To tag added
// for final answers that need one.
import { formatNameAddr, parseNameAddr } from "./address.ts";
import { SipHeaders, type SipRequest, type SipResponse } from "./message.ts";

const REASONS: Record<number, string> = {
  100: "Trying", 180: "Ringing", 183: "Session Progress", 200: "OK", 202: "Accepted",
  400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout",
  415: "Unsupported Media Type", 480: "Temporarily Unavailable", 481: "Call/Transaction Does Not Exist",
  486: "Busy Here", 487: "Request Terminated", 488: "Not Acceptable Here", 500: "Server Internal Error",
  501: "Not Implemented", 503: "Service Unavailable", 603: "Decline",
};

/** A response to `request`; `toTag` is added to To unless it has one (100 Trying never gets one). */
export function responseTo(request: SipRequest, status: number, options: { reason?: string; toTag?: string; headers?: [string, string][]; body?: string } = {}): SipResponse {
  const headers = new SipHeaders();
  for (const via of request.headers.all("via")) headers.append("via", via);
  headers.append("from", request.headers.get("from")!);
  const to = parseNameAddr(request.headers.get("to")!);
  if (status > 100 && options.toTag && to.params.tag === undefined) to.params.tag = options.toTag;
  headers.append("to", formatNameAddr(to));
  headers.append("call-id", request.headers.get("call-id")!);
  headers.append("cseq", request.headers.get("cseq")!);
  for (const [name, value] of options.headers ?? []) headers.append(name, value);
  return { type: "response", status, reason: options.reason ?? REASONS[status] ?? "Unknown", headers, body: options.body ?? "" };
}

/**
 * A 400 for a request that failed to parse but still names who asked (its Via, From, To, Call-ID
 * and CSeq lines read as they are); null when it does not, or when it was a response.
 */
export function badRequestFor(text: string, reason: string): SipResponse | null {
  const [startLine, ...lines] = text.split(/\r?\n\r?\n/)[0].split(/\r?\n/);
  if (!/^[A-Za-z]+ \S+ SIP\/2\.0$/.test(startLine ?? "") || /^ACK /i.test(startLine)) return null;
  const headers = new SipHeaders();
  for (const name of ["via", "from", "to", "call-id", "cseq"]) {
    const value = lines.map((line) => /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line)).find((m) => m && new SipHeaders([[m[1], ""]]).has(name))?.[2];
    if (!value) return null;
    headers.append(name, value.slice(0, 300));
  }
  // The reason phrase says what was wrong, on one line without control characters.
  return { type: "response", status: 400, reason: `Bad Request (${reason.replace(/[\x00-\x1f]/g, " ").slice(0, 100)})`, headers, body: "" };
}
