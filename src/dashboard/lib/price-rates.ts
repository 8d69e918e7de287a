// Every rate of the instance's price list, named once: the operator's pricing screen edits them, the
// billing screen tells a tenant which of them cost anything.
import type { PriceList } from "../../sdk/ts/src/index.ts";

const CARRIERS = ["simulated", "sip", "twilio", "telnyx"] as const;
const carrierName = (c: string) => (c === "sip" ? "SIP" : c[0].toUpperCase() + c.slice(1));

export interface PriceRate {
  /** Its path in the price list (also the field a refusal's errors[] names). */
  path: string;
  label: string;
  group: string;
  /** A per-minute rate of a call, or a number's monthly fee. */
  per: "minute" | "month";
}

export const PRICE_RATES: PriceRate[] = [
  ...CARRIERS.flatMap((c) => (["inbound", "outbound"] as const).map((d) => ({ path: `per_minute.telephony.${c}.${d}`, label: `${carrierName(c)}, ${d}`, group: "Calls, per minute", per: "minute" as const }))),
  { path: "per_minute.browser_voice", label: "Browser voice", group: "Calls, per minute", per: "minute" },
  { path: "per_minute.speech.builtin", label: "Speech, built-in", group: "Speech and language model, per minute", per: "minute" },
  { path: "per_minute.speech.provider", label: "Speech by a provider", group: "Speech and language model, per minute", per: "minute" },
  { path: "per_minute.llm.builtin", label: "Language model, built-in", group: "Speech and language model, per minute", per: "minute" },
  { path: "per_minute.llm.provider", label: "Language model by a provider", group: "Speech and language model, per minute", per: "minute" },
  ...CARRIERS.map((c) => ({ path: `number_monthly.${c}`, label: `${carrierName(c)} number`, group: "Phone numbers, per month", per: "month" as const })),
];

/** A rate's amount in micro-units. */
export const rateOf = (list: PriceList, path: string): number => path.split(".").reduce((node: any, key) => node[key], list);
