// Uploaded logos: raster images only, recognised by their first bytes, served at a content-addressed URL.
import { ApiError, invalid } from "../../http/errors.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { WHITE_LABEL_LIMITS } from "./limits.ts";

/**
 * The image types a logo may be, with the extension of its URL. SVG is refused: it is a document that
 * can carry script, and a logo gains nothing from it that a PNG or WebP does not give.
 */
export const LOGO_TYPES = { "image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif" } as const;
export type LogoType = keyof typeof LOGO_TYPES;

export interface Logo {
  contentType: LogoType;
  sha256: string;
  bytes: Buffer;
}

/** The type the bytes really are, from their signature, or null for anything else. */
export function sniffImage(bytes: Uint8Array): LogoType | null {
  const starts = (...signature: number[]) => signature.every((byte, i) => bytes[i] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (starts(0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return "image/gif";
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes.length >= 12 && String.fromCharCode(...bytes.subarray(8, 12)) === "WEBP") return "image/webp";
  return null;
}

/** An upload from `logo: { content_type, data_base64 }`: 413 over the size limit, 422 naming the field otherwise. */
export function decodeLogo(input: { content_type: string; data_base64: string }): Logo {
  const declared = input.content_type.trim().toLowerCase();
  if (declared === "image/svg+xml") throw invalid("logo.content_type", "SVG is not accepted (it can carry script): upload a PNG, JPEG, WebP or GIF");
  if (!(declared in LOGO_TYPES)) throw invalid("logo.content_type", `must be one of ${Object.keys(LOGO_TYPES).join(", ")}`);
  const text = input.data_base64.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) throw invalid("logo.data_base64", "is not base64");
  // Checked before decoding, so an oversized upload costs no buffer of its own.
  const size = Math.floor((text.length * 3) / 4) - (text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0);
  if (size > WHITE_LABEL_LIMITS.logoBytes) {
    throw new ApiError("payload_too_large", `logo.data_base64: the image is ${size} bytes; the most allowed is ${WHITE_LABEL_LIMITS.logoBytes}`, {
      errors: [{ field: "logo.data_base64", message: `is ${size} bytes; the most allowed is ${WHITE_LABEL_LIMITS.logoBytes}` }],
      members: { limit_bytes: WHITE_LABEL_LIMITS.logoBytes },
    });
  }
  const bytes = Buffer.from(text, "base64");
  if (!bytes.length) throw invalid("logo.data_base64", "must not be empty");
  const actual = sniffImage(bytes);
  if (!actual) throw invalid("logo.data_base64", `is not a ${declared.slice(6).toUpperCase()} image (its first bytes are no image signature we accept)`);
  if (actual !== declared) throw invalid("logo.content_type", `says ${declared} but the bytes are ${actual}`);
  return { contentType: actual, sha256: sha256Hex(bytes), bytes };
}

/** Where Parley serves a logo: the hash names the content, so the URL never needs to change meaning. */
export function logoPath(logo: { sha256: string; contentType: string }): string {
  return `/v1/branding/logos/${logo.sha256}.${LOGO_TYPES[logo.contentType as LogoType] ?? "img"}`;
}

/** The hash a served file name asks for (`<sha256>.<ext>`), or null when it is no logo name. */
export function logoHashOf(file: string): string | null {
  const match = /^([0-9a-f]{64})\.(png|jpg|webp|gif)$/.exec(file);
  return match ? match[1] : null;
}
