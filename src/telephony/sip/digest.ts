// HTTP digest authentication as SIP uses it (RFC 3261 §22, RFC 2617/7616 with MD5 or SHA-256):
// answering a 401/407 challenge from a trunk or PBX.
import { createHash, randomBytes } from "node:crypto";

export interface DigestChallenge {
  realm: string;
  nonce: string;
  algorithm: "MD5" | "SHA-256";
  qop: "auth" | null;
  opaque: string | null;
}

/** The challenge of a WWW-Authenticate or Proxy-Authenticate header, or null if it is not one we can answer. */
export function parseChallenge(header: string): DigestChallenge | null {
  const match = /^\s*Digest\s+(.*)$/is.exec(header);
  if (!match) return null;
  const params: Record<string, string> = {};
  for (const part of match[1].matchAll(/([a-zA-Z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]+))/g)) params[part[1].toLowerCase()] = part[2] ?? part[3];
  if (params.realm === undefined || !params.nonce) return null;
  const algorithm = (params.algorithm ?? "MD5").toUpperCase();
  if (algorithm !== "MD5" && algorithm !== "SHA-256") return null;
  const qops = (params.qop ?? "").split(",").map((q) => q.trim());
  if (params.qop && !qops.includes("auth")) return null;
  return { realm: params.realm, nonce: params.nonce, algorithm, qop: params.qop ? "auth" : null, opaque: params.opaque ?? null };
}

/** The Authorization (or Proxy-Authorization) header value for one request. */
export function digestAuthorization(challenge: DigestChallenge, request: { method: string; uri: string; username: string; password: string; nonceCount?: number; cnonce?: string }): string {
  const hash = (text: string) => createHash(challenge.algorithm === "MD5" ? "md5" : "sha256").update(text).digest("hex");
  const ha1 = hash(`${request.username}:${challenge.realm}:${request.password}`);
  const ha2 = hash(`${request.method}:${request.uri}`);
  const nc = (request.nonceCount ?? 1).toString(16).padStart(8, "0");
  const cnonce = request.cnonce ?? randomBytes(8).toString("hex");
  const response = challenge.qop ? hash(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:auth:${ha2}`) : hash(`${ha1}:${challenge.nonce}:${ha2}`);
  const parts = [
    `username="${request.username}"`,
    `realm="${challenge.realm}"`,
    `nonce="${challenge.nonce}"`,
    `uri="${request.uri}"`,
    `response="${response}"`,
    `algorithm=${challenge.algorithm}`,
  ];
  if (challenge.qop) parts.push(`qop=auth`, `nc=${nc}`, `cnonce="${cnonce}"`);
  if (challenge.opaque !== null) parts.push(`opaque="${challenge.opaque}"`);
  return `Digest ${parts.join(", ")}`;
}

/** An answer to our digest response that means the password is wrong: challenged again, or 403 (as many trunks answer). */
export function refusesCredentials(status: number): boolean {
  return status === 401 || status === 407 || status === 403;
}
