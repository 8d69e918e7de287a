// Which carriers a credential may use: test API keys reach only the simulated carrier (DESIGN: they
// never ring a real phone or spend money); everything else reaches every connection.
import { ApiError } from "../http/errors.ts";
import type { Carrier } from "./types.ts";

export type CarrierReach = "any" | "simulated";

export const reachOf = (principal: { keyMode: "live" | "test" | null }): CarrierReach => (principal.keyMode === "test" ? "simulated" : "any");

export function checkReach(carrier: Carrier, reach: CarrierReach): void {
  if (reach === "simulated" && carrier.kind !== "simulated") {
    throw new ApiError("forbidden", `test keys only reach the simulated carrier; ${carrier.connectionId} is a ${carrier.kind} connection (use a live key)`);
  }
}
