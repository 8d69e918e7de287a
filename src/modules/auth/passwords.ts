import { invalid } from "../../http/errors.ts";

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

let dummyHash: Promise<string> | null = null;

/**
 * Verifies against the stored hash, or against a throw-away hash when there is no user,
 * so a login for an unknown e-mail costs the same time as a wrong password.
 */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (hash) return Bun.password.verify(password, hash);
  dummyHash ??= hashPassword("parley-timing-equaliser");
  await Bun.password.verify(password, await dummyHash);
  return false;
}

export function checkPasswordStrength(field: string, password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw invalid(field, `must be at least ${PASSWORD_MIN_LENGTH} characters`);
  if (password.length > PASSWORD_MAX_LENGTH) throw invalid(field, `must be at most ${PASSWORD_MAX_LENGTH} characters`);
  if (password.trim().length === 0) throw invalid(field, "must not be blank");
}
