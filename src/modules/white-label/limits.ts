import { MINUTE } from "../../lib/time.ts";

/** What one brand may hold, in one place. */
export const WHITE_LABEL_LIMITS = {
  /** Bytes of an uploaded logo (decoded); 413 beyond. */
  logoBytes: 256 * 1024,
  /** Bytes of custom CSS (UTF-8) before sanitising. */
  customCssBytes: 20 * 1024,
  /** Custom domains attached to one workspace. */
  domainsPerWorkspace: 20,
  /** How long the in-memory map of verified domains is trusted without a change through this process. */
  directoryTtlMs: MINUTE,
} as const;
