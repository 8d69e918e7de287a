// A Telnyx account's numbers through API v2: search, order (attached to the Call Control app), adopt
// a number the account has, release. Telnyx's refusals become problems a client can act on.
import { ApiError, invalid } from "../../http/errors.ts";
import type { AvailableNumber, NumberInventory, NumberTaken } from "../types.ts";
import { TelnyxError, type TelnyxRest } from "./rest.ts";

interface TelnyxNumber {
  id: string;
  phone_number: string;
}

export class TelnyxNumbers implements NumberInventory {
  constructor(
    private readonly rest: TelnyxRest,
    private readonly country: string,
    private readonly appId: string,
  ) {}

  async search(query: { areaCode?: string; contains?: string; limit: number }, taken: NumberTaken): Promise<AvailableNumber[]> {
    const filter = new URLSearchParams({ "filter[country_code]": this.country, "filter[limit]": String(Math.min(query.limit + 10, 50)) });
    if (query.areaCode) filter.set("filter[national_destination_code]", query.areaCode);
    if (query.contains) filter.set("filter[phone_number][contains]", query.contains);
    const found = await telnyx(() => this.rest.request<{ phone_number: string; region_information?: { region_name?: string }[] }[]>("GET", `/available_phone_numbers?${filter}`));
    return found
      .filter((available) => !taken(available.phone_number))
      .slice(0, query.limit)
      .map((available) => ({ number: available.phone_number, region: (available.region_information ?? []).map((r) => r.region_name).filter(Boolean).join(", ") || null }));
  }

  async buy(request: { number?: string; areaCode?: string }, taken: NumberTaken): Promise<string> {
    let number = request.number;
    if (!number) {
      const [first] = await this.search({ areaCode: request.areaCode, limit: 1 }, taken);
      if (!first) throw new ApiError("number_unavailable", `Telnyx offers no number${request.areaCode ? ` in area code ${request.areaCode}` : ""} right now`);
      number = first.number;
    }
    const order = await telnyx(() => this.rest.request<{ phone_numbers: { phone_number: string }[] }>("POST", "/number_orders", { phone_numbers: [{ phone_number: number }], connection_id: this.appId }));
    return order.phone_numbers[0]?.phone_number ?? number;
  }

  async adopt(number: string): Promise<void> {
    const owned = await this.owned(number);
    if (!owned) throw invalid("number", `the Telnyx account has no number ${number}: buy it in Telnyx first, or buy one here`);
    await telnyx(() => this.rest.request("PATCH", `/phone_numbers/${encodeURIComponent(owned.id)}`, { connection_id: this.appId }));
  }

  async release(number: string, origin: "bought" | "imported"): Promise<void> {
    const owned = await this.owned(number);
    if (!owned) return;
    // A number the customer brought stays theirs: it only leaves Parley's Call Control app.
    if (origin === "imported") await telnyx(() => this.rest.request("PATCH", `/phone_numbers/${encodeURIComponent(owned.id)}`, { connection_id: null }));
    else await telnyx(() => this.rest.request("DELETE", `/phone_numbers/${encodeURIComponent(owned.id)}`));
  }

  private async owned(number: string): Promise<TelnyxNumber | null> {
    const found = await telnyx(() => this.rest.request<TelnyxNumber[]>("GET", `/phone_numbers?${new URLSearchParams({ "filter[phone_number]": number })}`));
    return found.find((owned) => owned.phone_number === number) ?? null;
  }
}

async function telnyx<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (!(error instanceof TelnyxError)) throw error;
    if (error.status === 401) throw new ApiError("bad_gateway", "Telnyx refused this connection's API key");
    if (error.status === 422 || error.status === 409) throw new ApiError("number_unavailable", `Telnyx: ${error.message}`, { errors: [{ field: "number", message: error.message }] });
    throw new ApiError("bad_gateway", `Telnyx: ${error.message}`);
  }
}
