// Packs the offline recogniser for the executable (scripts/build.ts): PocketSphinx's libraries with the
// ones they link that a bare Debian lacks, and the model files a decoder opens, as one zstd archive and
// the manifest pocketsphinx-location.ts extracts it by.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../../lib/crypto.ts";
import { DEBIAN_LIBRARY_DIR, DEBIAN_MODEL_DIR, MODEL_FILES } from "./pocketsphinx-decoder.ts";

export interface PackedFile {
  /** Where it goes in the extracted folder: `lib/<soname>` or `model/<model file>`. */
  path: string;
  size: number;
  sha256: string;
}

export interface PocketsphinxManifest {
  /** SHA-256 over every file's path and hash: names the extracted folder, so another build never reuses it. */
  hash: string;
  /** In the archive's order. */
  files: PackedFile[];
  /** The libraries' paths in the folder, each after those it links. */
  libraries: string[];
  /** The model folder's path in the folder. */
  modelDir: string;
}

export interface EmbeddedPocketsphinx extends PocketsphinxManifest {
  /** The zstd-compressed concatenation of the files, in the executable's embedded filesystem. */
  archive: string;
}

export interface PocketsphinxArchive {
  bytes: Uint8Array;
  manifest: PocketsphinxManifest;
  /** The files' size before compression. */
  unpackedBytes: number;
}

/** glibc's libraries and libgcc_s (libc6 depends on it): every Linux x64 system has them, so they are not carried. */
const SYSTEM_LIBRARY = /^(linux-vdso|ld-linux(-x86-64)?|libc|libm|libmvec|libpthread|libdl|librt|libresolv|libgcc_s)\.so/;

/** 9 packs Debian's 46 MiB into 31 MiB in ~0.7 s; 19 saves 2 MiB more and adds ~17 s to every build. */
const ZSTD_LEVEL = 9;

/** The recogniser of this machine's Debian packages, packed; or why there is none to pack. */
export function packPocketsphinx(libraryDir = DEBIAN_LIBRARY_DIR, modelDir = DEBIAN_MODEL_DIR): PocketsphinxArchive | string {
  const library = join(libraryDir, "libpocketsphinx.so.3");
  if (!existsSync(library)) return `${library} is not installed`;
  const absent = MODEL_FILES.filter((file) => !existsSync(join(modelDir, file)));
  if (absent.length === MODEL_FILES.length) return `${modelDir} is not installed`;
  if (absent.length > 0) return `the US English model in ${modelDir} lacks ${absent.join(", ")}`;
  const linked = linkedLibraries(library);
  if (typeof linked === "string") return linked;
  const carried = new Map([...linked].filter(([soname]) => !SYSTEM_LIBRARY.test(soname)));
  carried.set("libpocketsphinx.so.3", realpathSync(library));
  // A library links (directly or not) everything a library it links does, and more: ordered by how
  // many carried ones each links, every library comes after those it needs.
  const linksCarried = new Map<string, number>();
  for (const [soname, path] of carried) {
    const its = linkedLibraries(path);
    if (typeof its === "string") return its;
    linksCarried.set(soname, [...its.keys()].filter((name) => carried.has(name)).length);
  }
  const order = [...carried.keys()].sort((a, b) => linksCarried.get(a)! - linksCarried.get(b)!);
  const libraries = order.map((soname) => `lib/${soname}`);
  const sources: [string, string][] = [
    ...order.map((soname, i): [string, string] => [libraries[i], carried.get(soname)!]),
    ...MODEL_FILES.map((file): [string, string] => [`model/${file}`, join(modelDir, file)]),
  ];
  return packFiles(sources, libraries, "model");
}

/** `sources`: each file's path in the archive and where it is read from. */
export function packFiles(sources: [string, string][], libraries: string[], modelDir: string): PocketsphinxArchive {
  const contents = sources.map(([, source]) => readFileSync(source));
  const files = sources.map(([path], i) => ({ path, size: contents[i].length, sha256: sha256Hex(contents[i]) }));
  const unpacked = Buffer.concat(contents);
  return {
    bytes: Bun.zstdCompressSync(unpacked, { level: ZSTD_LEVEL }),
    manifest: { hash: sha256Hex(JSON.stringify(files)), files, libraries, modelDir },
    unpackedBytes: unpacked.length,
  };
}

/** Every library `file` loads, directly or not, by soname, with the file the system resolves it to. */
function linkedLibraries(file: string): Map<string, string> | string {
  const ldd = Bun.spawnSync(["ldd", file], { stdout: "pipe", stderr: "pipe" });
  if (!ldd.success) return `ldd ${file} failed: ${`${ldd.stdout}${ldd.stderr}`.trim()}`;
  const linked = new Map<string, string>();
  for (const [, soname, path] of ldd.stdout.toString().matchAll(/^\s*(\S+) => (\S+)/gm)) {
    if (path === "not") return `${file} links ${soname}, which is not installed`;
    linked.set(soname, realpathSync(path));
  }
  return linked;
}
