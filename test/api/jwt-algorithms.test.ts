// Access tokens verify only as what Parley issues (HS256): the same claims under another algorithm, even
// signed with the instance's own key, and unsigned tokens (`none` in any case) are 401.
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { serverWithUser } from "../helpers/fixtures.ts";

const s = serverWithUser();

const base64url = (value: string | Buffer) => Buffer.from(value).toString("base64url");

/** The user's own token's claims under `header`, signed with the instance key by `hash` (none: unsigned). */
function reSigned(header: Record<string, unknown>, hash: "sha256" | "sha384" | "sha512" | null): string {
  const payload = s.user.token.split(".")[1];
  const signingInput = `${base64url(JSON.stringify(header))}.${payload}`;
  if (!hash) return `${signingInput}.`;
  return `${signingInput}.${createHmac(hash, s.server.ctx.keys.jwt).update(signingInput).digest("base64url")}`;
}

const me = (token: string) => s.server.api.get("/v1/auth/me", { token });

describe("access token algorithms", () => {
  test("the claims re-signed HS256 with the instance key are accepted (the forging below is sound)", async () => {
    expect((await me(reSigned({ alg: "HS256", typ: "JWT" }, "sha256"))).status).toBe(200);
  });

  test.each([
    ["HS384", "sha384"],
    ["HS512", "sha512"],
    ["hs256", "sha256"],
    ["Hs256", "sha256"],
  ] as const)("alg %s, signed with the instance key: 401", async (alg, hash) => {
    const res = await me(reSigned({ alg, typ: "JWT" }, hash));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("unauthorized");
  });

  test.each(["none", "None", "NONE", "nOnE"])("alg %s (unsigned): 401", async (alg) => {
    const res = await me(reSigned({ alg, typ: "JWT" }, null));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("unauthorized");
  });

  test("an expired HS512 token with the instance key is not called expired: it was never valid", async () => {
    const [, payload] = s.user.token.split(".");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const header = base64url(JSON.stringify({ alg: "HS512", typ: "JWT" }));
    const signingInput = `${header}.${base64url(JSON.stringify({ ...claims, exp: claims.exp - 3600 }))}`;
    const token = `${signingInput}.${createHmac("sha512", s.server.ctx.keys.jwt).update(signingInput).digest("base64url")}`;
    const res = await me(token);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("unauthorized");
  });
});
