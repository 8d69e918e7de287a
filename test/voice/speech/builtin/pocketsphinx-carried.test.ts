// The recogniser the executable carries: what the build packs, and its extraction to the data dir's cache
// (whole, replaced when a file is short or altered, never mixed with another build's copy).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packFiles, packPocketsphinx, type EmbeddedPocketsphinx } from "../../../../src/voice/speech/builtin/pocketsphinx-bundle.ts";
import { pocketsphinxAvailability } from "../../../../src/voice/speech/builtin/index.ts";
import { extractPocketsphinx } from "../../../../src/voice/speech/builtin/pocketsphinx-location.ts";

let work: string;
let cache: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "parley-ps-cache-"));
  cache = join(work, "cache");
  mkdirSync(cache);
});

afterEach(() => rmSync(work, { recursive: true, force: true }));

/** A build's archive of three small files, written where the executable would carry it. */
function carried(contents: Record<string, string>): EmbeddedPocketsphinx {
  const sources = Object.entries(contents).map(([path, text], i): [string, string] => {
    const source = join(work, `source-${i}`);
    writeFileSync(source, text);
    return [path, source];
  });
  const packed = packFiles(sources, ["lib/liba.so.1", "lib/libb.so.2"], "model");
  const archive = join(work, `archive-${packed.manifest.hash}.zst`);
  writeFileSync(archive, packed.bytes);
  return { archive, ...packed.manifest };
}

const FILES = { "lib/liba.so.1": "library a", "lib/libb.so.2": "library b, which links a", "model/en-us/mdef": "a model file ".repeat(1000) };

describe("the carried recogniser's cache", () => {
  test("is extracted whole into a folder named by the build's content, libraries in load order", () => {
    const embedded = carried(FILES);
    const location = extractPocketsphinx(embedded, cache);
    const folder = join(cache, `pocketsphinx-${embedded.hash.slice(0, 16)}`);
    expect(location).toEqual({ libraries: [join(folder, "lib/liba.so.1"), join(folder, "lib/libb.so.2")], modelDir: join(folder, "model") });
    for (const [path, text] of Object.entries(FILES)) expect(readFileSync(join(folder, path), "utf8")).toBe(text);
    expect(readdirSync(cache)).toEqual([`pocketsphinx-${embedded.hash.slice(0, 16)}`]); // no scratch folder left
  });

  test("an intact copy is used as it is", () => {
    const embedded = carried(FILES);
    const { modelDir } = extractPocketsphinx(embedded, cache);
    const mdef = join(modelDir, "en-us", "mdef");
    const written = statSync(mdef).mtimeMs;
    Bun.sleepSync(20);
    extractPocketsphinx(embedded, cache);
    expect(statSync(mdef).mtimeMs).toBe(written);
  });

  test("a partial copy (a short or missing file) is replaced", () => {
    const embedded = carried(FILES);
    const { libraries, modelDir } = extractPocketsphinx(embedded, cache);
    truncateSync(join(modelDir, "en-us", "mdef"), 100);
    extractPocketsphinx(embedded, cache);
    expect(readFileSync(join(modelDir, "en-us", "mdef"), "utf8")).toBe(FILES["model/en-us/mdef"]);
    rmSync(libraries[1]);
    extractPocketsphinx(embedded, cache);
    expect(readFileSync(libraries[1], "utf8")).toBe(FILES["lib/libb.so.2"]);
  });

  test("a file altered at the same size is replaced", () => {
    const embedded = carried(FILES);
    const { libraries } = extractPocketsphinx(embedded, cache);
    writeFileSync(libraries[0], "library A");
    extractPocketsphinx(embedded, cache);
    expect(readFileSync(libraries[0], "utf8")).toBe("library a");
  });

  test("another build's copy is removed, and never used", () => {
    const old = carried({ ...FILES, "lib/liba.so.1": "library a, older" });
    const oldLocation = extractPocketsphinx(old, cache);
    const embedded = carried(FILES);
    const location = extractPocketsphinx(embedded, cache);
    expect(location.modelDir).not.toBe(oldLocation.modelDir);
    expect(readFileSync(location.libraries[0], "utf8")).toBe("library a");
    expect(existsSync(oldLocation.modelDir)).toBe(false);
    expect(readdirSync(cache)).toEqual([`pocketsphinx-${embedded.hash.slice(0, 16)}`]);
  });
});

describe("what the build packs", () => {
  test.skipIf(!pocketsphinxAvailability().available)("this machine's PocketSphinx: each library after those it links, bare-system ones left out, and only the model files a decoder opens", () => {
    const packed = packPocketsphinx();
    if (typeof packed === "string") throw new Error(packed);
    const { libraries, files, modelDir } = packed.manifest;
    // Debian 12's libsphinxbase3 links LAPACK and BLAS, and through them gfortran and quadmath.
    expect(libraries.indexOf("lib/libpocketsphinx.so.3")).toBe(libraries.length - 1);
    expect(libraries.indexOf("lib/libsphinxbase.so.3")).toBeLessThan(libraries.indexOf("lib/libpocketsphinx.so.3"));
    expect(libraries.indexOf("lib/liblapack.so.3")).toBeLessThan(libraries.indexOf("lib/libsphinxbase.so.3"));
    expect(libraries.indexOf("lib/libblas.so.3")).toBeLessThan(libraries.indexOf("lib/liblapack.so.3"));
    expect(libraries.indexOf("lib/libquadmath.so.0")).toBeLessThan(libraries.indexOf("lib/libgfortran.so.5"));
    expect(libraries.filter((path) => /\/(libc|libm|libgcc_s|ld-linux)/.test(path))).toEqual([]);
    const model = files.map((file) => file.path).filter((path) => path.startsWith(`${modelDir}/`));
    expect(model).toContain("model/en-us.lm.bin");
    expect(model).toContain("model/en-us/mdef");
    expect(model.filter((path) => /README|phone\.lm/.test(path))).toEqual([]);
    expect(Bun.zstdDecompressSync(packed.bytes).length).toBe(packed.unpackedBytes);
  });

  test("nothing, with the reason, where PocketSphinx is not installed", () => {
    expect(packPocketsphinx(join(work, "lib"), join(work, "model"))).toBe(`${join(work, "lib", "libpocketsphinx.so.3")} is not installed`);
  });
});
