// CMU PocketSphinx (Debian bookworm's libpocketsphinx3 0.8+5prealpha and the pocketsphinx-en-us
// model), called through bun:ffi: from the copy dist/parley carries (pocketsphinx-location.ts) or from
// the operating system's packages, opened by soname. Decoders live on the recognition thread
// (pocketsphinx-thread.ts); the server's side only checks here that every piece is there.
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { CString, dlopen, FFIType, ptr, type Pointer } from "bun:ffi";

export const POCKETSPHINX_INSTALL = "apt-get install -y libpocketsphinx3 pocketsphinx-en-us";
/** Where Debian's pocketsphinx-en-us puts the US English model. */
export const DEBIAN_MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";
/** Where Debian's libpocketsphinx3 puts the library. */
export const DEBIAN_LIBRARY_DIR = "/usr/lib/x86_64-linux-gnu";

/**
 * The model files a decoder opens (strace of a decoder's creation and its three searches), relative to
 * the model folder; the package's README and phonetic language model (en-us-phone.lm.bin) are never read.
 */
export const MODEL_FILES = [
  "en-us/feat.params",
  "en-us/mdef",
  "en-us/means",
  "en-us/noisedict",
  "en-us/sendump",
  "en-us/transition_matrices",
  "en-us/variances",
  "en-us.lm.bin",
  "cmudict-en-us.dict",
];

/** Where the recogniser's libraries and model are. */
export interface PocketsphinxLocation {
  /** The libraries' paths, each after those it links (the carried copy); null: the OS's, opened by soname. */
  libraries: string[] | null;
  modelDir: string;
}

export const OS_POCKETSPHINX: PocketsphinxLocation = { libraries: null, modelDir: DEBIAN_MODEL_DIR };

/**
 * Recognition modes, chosen with `RecognitionOptions.model`. The default is open dictation with
 * the general US English language model; the grammars only accept what they list, which is far
 * more accurate when the answer is known to be digits or yes/no (e.g. a flow step asking for them).
 */
export const POCKETSPHINX_MODELS = ["en-us", "digits", "yes-no"] as const;
export type PocketsphinxModel = (typeof POCKETSPHINX_MODELS)[number];

const GRAMMARS: Record<Exclude<PocketsphinxModel, "en-us">, string> = {
  digits: `#JSGF V1.0;
grammar digits;
public <digits> = <digit>+;
<digit> = zero | oh | one | two | three | four | five | six | seven | eight | nine;`,
  "yes-no": `#JSGF V1.0;
grammar yesno;
public <answer> = [<filler>] (<yes> | <no>) [please | thanks | thank you];
<filler> = oh | well | um;
<yes> = yes | yeah | yep | sure | correct | right | that's right | okay;
<no> = no | nope | no thanks | not really | wrong;`,
};

/** Word insertion probability for grammar searches (dictation keeps the model's 0.65). */
const GRAMMAR_WORD_INSERTION_PENALTY = 0.02;

/** One ps_decoder_t with the searches it has loaded. */
export class Decoder {
  private readonly searches = new Set<string>(["en-us"]);
  private readonly score = new Int32Array(1);

  private constructor(private readonly handle: NativePointer) {}

  static create(location: PocketsphinxLocation, extraArgs: string[]): Decoder {
    const missing = missingPieces(location);
    if (missing) throw new Error(missing);
    const { modelDir } = location;
    const config = parseConfig(libraries!, [
      "-hmm", join(modelDir, "en-us"),
      "-lm", join(modelDir, "en-us.lm.bin"),
      "-dict", join(modelDir, "cmudict-en-us.dict"),
      "-logfn", "/dev/null",
      ...extraArgs,
    ]);
    const handle = libraries!.ps.symbols.ps_init(config);
    libraries!.sphinxbase.symbols.cmd_ln_free_r(config); // the decoder keeps its own reference
    if (!handle) throw new Error(`PocketSphinx could not load the model in ${modelDir}; reinstall it with: ${POCKETSPHINX_INSTALL}`);
    return new Decoder(handle);
  }

  startUtterance(model: PocketsphinxModel): void {
    const { ps } = libraries!;
    // ps_init names the language-model search "_default".
    const search = model === "en-us" ? "_default" : model;
    if (!this.searches.has(model) && model !== "en-us") {
      // A grammar search reads the word insertion penalty when it is created; a stronger one
      // than dictation's stops it padding short answers with extra words (digit WER 11% → 5%).
      const { sphinxbase } = libraries!;
      const config = ps.symbols.ps_get_config(this.handle);
      const wip = cString("-wip");
      const dictationWip = sphinxbase.symbols.cmd_ln_float_r(config, wip);
      sphinxbase.symbols.cmd_ln_set_float_r(config, wip, GRAMMAR_WORD_INSERTION_PENALTY);
      const status = ps.symbols.ps_set_jsgf_string(this.handle, cString(model), cString(GRAMMARS[model]));
      sphinxbase.symbols.cmd_ln_set_float_r(config, wip, dictationWip);
      if (status !== 0) throw new Error(`pocketsphinx rejected the ${model} grammar`);
      this.searches.add(model);
    }
    if (ps.symbols.ps_set_search(this.handle, cString(search)) !== 0) throw new Error(`pocketsphinx has no search ${search}`);
    if (ps.symbols.ps_start_utt(this.handle) !== 0) throw new Error("pocketsphinx could not start an utterance");
  }

  process(pcm: Int16Array): void {
    if (libraries!.ps.symbols.ps_process_raw(this.handle, pcm, pcm.length, 0, 0) < 0) {
      throw new Error("pocketsphinx failed to process audio");
    }
  }

  endUtterance(): void {
    if (libraries!.ps.symbols.ps_end_utt(this.handle) < 0) throw new Error("pocketsphinx could not end the utterance");
  }

  hypothesis(): string {
    const text = libraries!.ps.symbols.ps_get_hyp(this.handle, this.score);
    return text ? new CString(text as Pointer).toString().trim() : "";
  }

  free(): void {
    libraries!.ps.symbols.ps_free(this.handle);
    // A decoder is ~100 MB in many small allocations: without a trim glibc keeps the freed pages.
    libraries!.libc?.symbols.malloc_trim(0);
  }
}

function openPocketsphinx(paths: string[] | null) {
  const libc = openLibc();
  // A carried library is loaded by path after those it links: the dynamic linker then finds each of
  // those already loaded, by soname, instead of searching the system for it.
  for (const path of paths ?? []) preload(libc, path);
  const pathOf = (soname: string) => paths?.find((path) => basename(path) === soname) ?? soname;
  const sphinxbase = dlopen(pathOf("libsphinxbase.so.3"), {
    err_set_logfp: { args: [FFIType.ptr], returns: FFIType.ptr },
    cmd_ln_parse_r: { args: [FFIType.ptr, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.ptr },
    cmd_ln_free_r: { args: [FFIType.ptr], returns: FFIType.i32 },
    cmd_ln_float_r: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.f64 },
    cmd_ln_set_float_r: { args: [FFIType.ptr, FFIType.ptr, FFIType.f64], returns: FFIType.void },
  });
  const ps = dlopen(pathOf("libpocketsphinx.so.3"), {
    ps_args: { args: [], returns: FFIType.ptr },
    ps_init: { args: [FFIType.ptr], returns: FFIType.ptr },
    ps_free: { args: [FFIType.ptr], returns: FFIType.i32 },
    ps_get_config: { args: [FFIType.ptr], returns: FFIType.ptr },
    ps_set_jsgf_string: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    ps_set_search: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    ps_start_utt: { args: [FFIType.ptr], returns: FFIType.i32 },
    ps_process_raw: { args: [FFIType.ptr, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    ps_end_utt: { args: [FFIType.ptr], returns: FFIType.i32 },
    ps_get_hyp: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.ptr },
  });
  // Silence the library before it says anything (it logs its whole configuration otherwise).
  sphinxbase.symbols.err_set_logfp(null);
  return { sphinxbase, ps, libc };
}

function openLibc() {
  try {
    // glibc ≥ 2.34 has dlopen in libc itself; bun:ffi's own dlopen insists on binding a symbol.
    return dlopen("libc.so.6", {
      malloc_trim: { args: [FFIType.u64], returns: FFIType.i32 },
      dlopen: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.ptr },
      dlerror: { args: [], returns: FFIType.cstring },
    });
  } catch {
    return null; // not glibc: freed memory is the allocator's business, and only the OS's libraries load
  }
}

const RTLD_NOW = 2;

function preload(libc: ReturnType<typeof openLibc>, path: string): void {
  if (!libc) throw new Error(`${path} needs glibc's dynamic loader`);
  if (!libc.symbols.dlopen(cString(path), RTLD_NOW)) throw new Error(String(libc.symbols.dlerror()));
}

type Libraries = ReturnType<typeof openPocketsphinx>;
/** What bun:ffi hands back for a C pointer (bigint only above 2^53, which x86-64 never uses). */
type NativePointer = Pointer | bigint;
let libraries: Libraries | null = null;

/**
 * What stops PocketSphinx from running, as a sentence, or null when it can run. The libraries are
 * opened once per thread, from the first location asked about (a process uses one).
 */
export function missingPieces(location: PocketsphinxLocation): string | null {
  if (!libraries) {
    try {
      libraries = openPocketsphinx(location.libraries);
    } catch (error) {
      if (location.libraries) return `The offline recogniser this executable carries did not load: ${(error as Error).message}`;
      return `The offline recogniser needs the PocketSphinx library; install it with: ${POCKETSPHINX_INSTALL}`;
    }
  }
  if (!MODEL_FILES.every((file) => existsSync(join(location.modelDir, file)))) {
    return `The offline recogniser needs the US English model in ${location.modelDir}; install it with: ${POCKETSPHINX_INSTALL}`;
  }
  return null;
}

function parseConfig(libraries: Libraries, args: string[]): NativePointer {
  const strings = args.map(cString);
  const argv = new BigUint64Array(strings.length);
  strings.forEach((string, i) => (argv[i] = BigInt(ptr(string))));
  const config = libraries.sphinxbase.symbols.cmd_ln_parse_r(null, libraries.ps.symbols.ps_args(), args.length, argv, 1);
  if (!config) throw new Error(`pocketsphinx rejected its configuration: ${args.join(" ")}`);
  return config;
}

/** A NUL-terminated copy for C; callers keep it referenced until the call returns. */
function cString(text: string): Buffer {
  return Buffer.from(`${text}\0`, "utf8");
}
