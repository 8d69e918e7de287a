// What the form asks of each kind of carrier connection: its main settings and its secrets (the README's
// "Carrier connections" lists every setting; the API names any field it refuses).
export type CarrierKind = "simulated" | "sip" | "twilio" | "telnyx";

export interface KindField {
  name: string;
  label: string;
  hint?: string;
  secret?: boolean;
  number?: boolean;
}

export const KINDS: { value: CarrierKind; label: string; settings: KindField[]; credentials: KindField[] }[] = [
  {
    value: "sip",
    label: "SIP trunk (PBX, SBC or SIP provider)",
    settings: [
      { name: "trunk", label: "Trunk", hint: "Host or IP of the trunk, with :port if not 5060." },
      { name: "listen_port", label: "Listen port", hint: "Where Parley takes the trunk's calls (default 5060; 0 picks one).", number: true },
      { name: "public_address", label: "Public address", hint: "The IP the trunk reaches this machine at (optional)." },
    ],
    credentials: [
      { name: "username", label: "Username", hint: "For digest authentication; none for a trunk that trusts Parley's IP." },
      { name: "password", label: "Password", secret: true },
    ],
  },
  {
    value: "twilio",
    label: "Twilio",
    settings: [{ name: "country", label: "Country", hint: "Two letters: where numbers are searched (default US)." }],
    credentials: [
      { name: "account_sid", label: "Account SID", hint: "AC followed by 32 hex digits." },
      { name: "auth_token", label: "Auth token", secret: true },
    ],
  },
  {
    value: "telnyx",
    label: "Telnyx",
    settings: [
      { name: "call_control_app_id", label: "Call Control application id" },
      { name: "country", label: "Country", hint: "Two letters: where numbers are searched (default US)." },
    ],
    credentials: [
      { name: "api_key", label: "API key", secret: true },
      { name: "public_key", label: "Public key", hint: "The webhook signing key." },
    ],
  },
  { value: "simulated", label: "Simulated (for development and tests)", settings: [], credentials: [] },
];

/** The filled-in fields of a group as the API takes them (numbers as numbers, blanks left out). */
export function filled(fields: KindField[], values: Record<string, string>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const field of fields) {
    const value = values[field.name]?.trim();
    if (value) out[field.name] = field.number && /^\d+$/.test(value) ? Number(value) : value;
  }
  return out;
}
