// Where the offline recogniser comes from: the copy dist/parley carries when it has one, extracted on
// first use to `<data-dir>/cache/pocketsphinx-<hash>/` (the dynamic loader and PocketSphinx read real
// files, not the executable's embedded ones), else the OS's packages.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { sha256Hex } from "../../../lib/crypto.ts";
import type { EmbeddedPocketsphinx, PackedFile } from "./pocketsphinx-bundle.ts";
import { OS_POCKETSPHINX, type PocketsphinxLocation } from "./pocketsphinx-decoder.ts";
import { EMBEDDED_POCKETSPHINX } from "./pocketsphinx-embedded.ts";

let cacheDir: string | null = null;
/** The extracted copy's location, or why it could not be extracted (not tried again: it costs ~0.3 s). */
let carried: PocketsphinxLocation | Error | null = null;

/** The data dir's cache, where a carried recogniser is extracted. Without one the OS's is used. */
export function usePocketsphinxCache(dir: string): void {
  if (dir === cacheDir) return;
  cacheDir = dir;
  carried = null;
}

/** Throws when the executable carries a recogniser that could not be extracted. */
export function pocketsphinxLocation(): PocketsphinxLocation {
  if (!EMBEDDED_POCKETSPHINX || !cacheDir) return OS_POCKETSPHINX;
  if (!carried) {
    try {
      carried = extractPocketsphinx(EMBEDDED_POCKETSPHINX, cacheDir);
    } catch (error) {
      carried = new Error(`could not be extracted to ${cacheDir}: ${(error as Error).message}`);
    }
  }
  if (carried instanceof Error) throw carried;
  return carried;
}

/**
 * Extracts the archive unless an intact copy is there (every file's size and SHA-256 checked, ~50 ms):
 * into a scratch folder renamed into place, so a crash or a full disk never leaves a partial copy under
 * the final name. Copies of other builds, and scratch folders of interrupted runs, are removed (one
 * server runs per data dir).
 */
export function extractPocketsphinx(embedded: EmbeddedPocketsphinx, cacheDir: string): PocketsphinxLocation & { libraries: string[] } {
  const folder = join(cacheDir, `pocketsphinx-${embedded.hash.slice(0, 16)}`);
  // First, so an upgrade's copy has the old one's room.
  for (const name of readdirSync(cacheDir)) {
    if (name.startsWith("pocketsphinx-") && join(cacheDir, name) !== folder) rmSync(join(cacheDir, name), { recursive: true, force: true });
  }
  if (!intact(folder, embedded.files)) {
    const scratch = `${folder}.${process.pid}.tmp`;
    try {
      const content = Bun.zstdDecompressSync(readFileSync(embedded.archive));
      let offset = 0;
      for (const file of embedded.files) {
        const target = join(scratch, file.path);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, content.subarray(offset, (offset += file.size)), { mode: 0o644 });
      }
      rmSync(folder, { recursive: true, force: true });
      renameSync(scratch, folder);
    } catch (error) {
      rmSync(scratch, { recursive: true, force: true }); // a full disk keeps none of it
      throw error;
    }
  }
  return { libraries: embedded.libraries.map((path) => join(folder, path)), modelDir: join(folder, embedded.modelDir) };
}

function intact(folder: string, files: PackedFile[]): boolean {
  return files.every((file) => {
    const path = join(folder, file.path);
    return existsSync(path) && statSync(path).size === file.size && sha256Hex(readFileSync(path)) === file.sha256;
  });
}
