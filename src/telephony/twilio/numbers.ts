// A Twilio account's numbers through its REST API: search, buy (pointed at Parley), adopt a number
// the account already has, release. Twilio's refusals become problems a client can act on.
import { ApiError, invalid } from "../../http/errors.ts";
import type { AvailableNumber, NumberInventory, NumberTaken } from "../types.ts";
import { TwilioError, type TwilioRest } from "./rest.ts";

/** Twilio's codes for a number that cannot be bought (taken meanwhile, not offered). */
const NOT_AVAILABLE = new Set([21421, 21422, 21452]);

export interface NumberCallbacks {
  voice: string;
  status: string;
}

export class TwilioNumbers implements NumberInventory {
  constructor(
    private readonly rest: TwilioRest,
    private readonly country: string,
    private readonly accountSid: string,
    private readonly callbacks: () => NumberCallbacks,
  ) {}

  async search(query: { areaCode?: string; contains?: string; limit: number }, taken: NumberTaken): Promise<AvailableNumber[]> {
    const found = await twilio(() => this.rest.availableNumbers(this.country, { ...query, limit: Math.min(query.limit + 10, 50) }));
    return found
      .filter((available) => !taken(available.phone_number))
      .slice(0, query.limit)
      .map((available) => ({ number: available.phone_number, region: [available.locality, available.region, available.iso_country].filter(Boolean).join(", ") || null }));
  }

  async buy(request: { number?: string; areaCode?: string }, taken: NumberTaken): Promise<string> {
    let number = request.number;
    if (!number) {
      const [first] = await this.search({ areaCode: request.areaCode, limit: 1 }, taken);
      if (!first) throw new ApiError("number_unavailable", `Twilio offers no number${request.areaCode ? ` in area code ${request.areaCode}` : ""} right now`);
      number = first.number;
    }
    const { voice, status } = this.callbacks();
    const bought = await twilio(() => this.rest.buyNumber({ PhoneNumber: number, VoiceUrl: voice, VoiceMethod: "POST", StatusCallback: status, StatusCallbackMethod: "POST" }));
    return bought.phone_number;
  }

  async adopt(number: string): Promise<void> {
    const owned = await twilio(() => this.rest.ownedNumber(number));
    if (!owned) throw invalid("number", `the Twilio account ${this.accountSid} has no number ${number}: buy it in Twilio first, or buy one here`);
    const { voice, status } = this.callbacks();
    await twilio(() => this.rest.updateNumber(owned.sid, { VoiceUrl: voice, VoiceMethod: "POST", StatusCallback: status, StatusCallbackMethod: "POST" }));
  }

  async release(number: string, origin: "bought" | "imported"): Promise<void> {
    const owned = await twilio(() => this.rest.ownedNumber(number));
    // Already gone from the account: nothing left to give back.
    if (!owned) return;
    // A number the customer brought stays theirs: it only stops ringing Parley.
    if (origin === "imported") await twilio(() => this.rest.updateNumber(owned.sid, { VoiceUrl: "", StatusCallback: "" }));
    else await twilio(() => this.rest.releaseNumber(owned.sid));
  }
}

/** Runs a REST request; Twilio's refusal becomes the problem a client sees. */
async function twilio<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (!(error instanceof TwilioError)) throw error;
    if (error.status === 401) throw new ApiError("bad_gateway", "Twilio refused this connection's credentials: check account_sid and auth_token");
    if (error.code !== null && NOT_AVAILABLE.has(error.code)) throw new ApiError("number_unavailable", `Twilio: ${error.message}`, { errors: [{ field: "number", message: error.message }] });
    throw new ApiError("bad_gateway", `Twilio: ${error.message}`);
  }
}
