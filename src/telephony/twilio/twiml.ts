// The few TwiML documents Parley answers with (https://www.twilio.com/docs/voice/twiml).

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);
}

const DOCUMENT = '<?xml version="1.0" encoding="UTF-8"?>';

/** Connects the call to a bidirectional Media Stream; the parameters come back in the stream's `start`. */
export function streamTwiml(url: string, parameters: Record<string, string>): string {
  const params = Object.entries(parameters)
    .map(([name, value]) => `<Parameter name="${escapeXml(name)}" value="${escapeXml(value)}"/>`)
    .join("");
  return `${DOCUMENT}<Response><Connect><Stream url="${escapeXml(url)}">${params}</Stream></Connect></Response>`;
}

/** Refuses an inbound call without answering it (no charge to the caller). */
export function rejectTwiml(reason: "rejected" | "busy"): string {
  return `${DOCUMENT}<Response><Reject reason="${reason}"/></Response>`;
}

/** A blind transfer: the call leaves the stream and is dialled on to a number or SIP URI. */
export function dialTwiml(to: string): string {
  const target = /^sips?:/i.test(to) ? `<Sip>${escapeXml(to)}</Sip>` : `<Number>${escapeXml(to)}</Number>`;
  return `${DOCUMENT}<Response><Dial>${target}</Dial></Response>`;
}
