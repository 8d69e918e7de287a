// Custom domain names as a reseller types them, in the one form they are stored and matched in.
import { isIP } from "node:net";
import { domainToASCII } from "node:url";

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A host name in stored form (lower case, punycode, no scheme, port, path or trailing dot), or why
 * it is not one. IP addresses and single-label names are refused: a brand needs a DNS name.
 */
export function normalizeDomain(raw: string): { domain: string } | { error: string } {
  let value = raw.trim().toLowerCase().replace(/^[a-z][a-z0-9+.-]*:\/\//, "");
  value = value.replace(/[/?#].*$/, "");
  if (value.includes("@")) return { error: "must be a host name, without a user name or password" };
  if (value.startsWith("[") || isIP(value)) return { error: "must be a domain name, not an IP address" };
  value = value.replace(/:\d*$/, "").replace(/\.$/, "");
  if (!value) return { error: "must be a domain name such as app.example.com" };
  if (isIP(value)) return { error: "must be a domain name, not an IP address" };
  const ascii = domainToASCII(value);
  if (!ascii || ascii.length > 253 || !ascii.split(".").every((label) => LABEL.test(label))) return { error: `${value.slice(0, 100)} is not a valid host name` };
  const labels = ascii.split(".");
  if (labels.length < 2) return { error: "must be a fully qualified domain name such as app.example.com" };
  if (/^\d+$/.test(labels[labels.length - 1])) return { error: `${ascii} is not a valid host name` };
  return { domain: ascii };
}

/** The name of the TXT record that proves a domain (`_<brand slug>-verify.<domain>`). */
export function verificationRecordName(brandSlug: string, domain: string): string {
  return `_${brandSlug}-verify.${domain}`;
}
