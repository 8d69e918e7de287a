// A carrier that calls back (Twilio, Telnyx) must reach this instance at its public URL: a
// connection whose callbacks could never arrive is refused when it is made, with the reason.
import { isIP } from "node:net";
import { ApiError } from "../http/errors.ts";
import { isPublicAddress } from "../net/address-policy.ts";

/** Why the carrier's cloud cannot call `publicUrl` back, or null when it can. */
export function unreachableReason(publicUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    return `${publicUrl} is not a URL`;
  }
  if (url.protocol !== "https:") return `${publicUrl} is not https (carriers call back over TLS only)`;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && !isPublicAddress(host)) return `${publicUrl} is a private or loopback address`;
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal") || !host.includes(".")) {
    return `${publicUrl} is a local host name`;
  }
  return null;
}

/**
 * Refuses a connection to the carrier's real cloud when Parley's public URL cannot be reached from
 * it. A connection to another API base (the carrier's protocol spoken by a local server, a proxy)
 * is allowed any http(s) URL: that server says where it can reach.
 */
export function requireReachable(carrier: string, publicUrl: string, realCloud: boolean): void {
  const reason = realCloud ? unreachableReason(publicUrl) : /^https?:\/\//.test(publicUrl) ? null : `${publicUrl} is not an http(s) URL`;
  if (!reason) return;
  const message = `${carrier} calls Parley back at its public URL, and ${reason}: start Parley with --public-url (PARLEY_PUBLIC_URL) set to the https address ${carrier} can reach`;
  throw new ApiError("validation_failed", message, { errors: [{ field: "public_url", message }] });
}
