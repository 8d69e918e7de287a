import { jwt } from "@elysiajs/jwt";
import type { Clock } from "../core/clock.ts";
import { ApiError } from "./errors.ts";

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;

export interface AccessClaims {
  /** User id. */
  sub: string;
  /** Session (refresh-token family) id: revoking it ends the access tokens too. */
  sid: string;
  /** Workspace the token acts in by default. */
  ws: string | null;
}

type Signer = {
  sign(claims: Record<string, unknown>): Promise<string>;
  verify(token: string, options?: { currentDate?: Date; issuer?: string; algorithms?: string[] }): Promise<Record<string, unknown> | false>;
};

/**
 * The one algorithm Parley signs with, and so the only one it accepts: left open, the verifier takes any
 * HMAC the key fits (HS384 and HS512 made with the instance key too), which widens what a leaked or
 * guessed key setting can forge for nothing. `none`, in any case, never verifies.
 */
const ALGORITHMS = ["HS256"];

const VERIFIED_CACHE_SIZE = 10_000;

/** Access tokens: HS256 JWTs signed with a key derived from the instance secret. */
export class AccessTokens {
  private signer: Signer;
  /** Tokens whose signature was already checked, with their claims: a client sends one token many times. */
  private verified = new Map<string, AccessClaims & { exp: number }>();

  constructor(key: Uint8Array, private clock: Clock, private issuer: string) {
    const plugin = jwt({ name: "jwt", secret: key, alg: ALGORITHMS[0], iss: issuer });
    this.signer = (plugin as unknown as { decorator: { jwt: Signer } }).decorator.jwt;
  }

  issue(claims: AccessClaims): Promise<string> {
    const exp = Math.floor(this.clock.now() / 1000) + ACCESS_TOKEN_TTL_SECONDS;
    return this.signer.sign({ ...claims, exp });
  }

  /** Throws 401 `token_expired` for a genuine but expired token, `unauthorized` for anything else. */
  async verify(token: string): Promise<AccessClaims> {
    const now = new Date(this.clock.now());
    const known = this.verified.get(token);
    if (known && known.exp * 1000 > now.getTime()) return known;
    const claims = await this.signer.verify(token, { currentDate: now, issuer: this.issuer, algorithms: ALGORITHMS });
    if (claims && isAccessClaims(claims) && typeof claims.exp === "number") {
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
      const entry = { sub: claims.sub, sid: claims.sid, ws: claims.ws, exp: claims.exp };
      this.verified.set(token, entry);
      return entry;
    }
    const exp = unverifiedExpiry(token);
    if (exp !== null && exp * 1000 <= now.getTime()) {
      // Only say "expired" when the signature is ours: check it as of just before expiry.
      const genuine = await this.signer.verify(token, { currentDate: new Date((exp - 1) * 1000), issuer: this.issuer, algorithms: ALGORITHMS });
      if (genuine) throw new ApiError("token_expired", "the access token has expired; refresh it");
    }
    throw new ApiError("unauthorized", "the access token is not valid");
  }
}

function isAccessClaims(value: Record<string, unknown>): value is AccessClaims & Record<string, unknown> {
  return typeof value.sub === "string" && typeof value.sid === "string" && (value.ws === null || typeof value.ws === "string");
}

function unverifiedExpiry(token: string): number | null {
  try {
    const payload = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"));
    return typeof payload.exp === "number" ? payload.exp : null;
  } catch {
    return null;
  }
}
