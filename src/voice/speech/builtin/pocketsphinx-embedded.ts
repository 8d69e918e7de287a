// The offline recogniser carried inside dist/parley: scripts/build.ts replaces this module with the archive
// it packs (pocketsphinx-bundle.ts) when the build machine has PocketSphinx. From source, and from a
// build without it, it stays null and the OS's packages are used.
import type { EmbeddedPocketsphinx } from "./pocketsphinx-bundle.ts";

export const EMBEDDED_POCKETSPHINX: EmbeddedPocketsphinx | null = null;
