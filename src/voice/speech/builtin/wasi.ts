// Just enough of WASI preview 1 to run a command-line program compiled to WASI entirely in memory:
// arguments, captured stdout/stderr, and one preopened directory `/` whose files are written to
// memory buffers. Nothing touches the real filesystem, the clock is monotonic, and stdin is empty.
//
// A module instance can run many times: its only mutable global is the shadow-stack pointer, which
// is back at its start value when `_start` returns normally, so restoring the linear memory to the
// pristine image gives a fresh program. After a trap or a non-zero exit the instance is discarded.

const ESUCCESS = 0;
const EBADF = 8;
const EINVAL = 28;
const ENOENT = 44;
const ESPIPE = 70;
const ENOTCAPABLE = 76;

const FILETYPE_CHARACTER_DEVICE = 2;
const FILETYPE_DIRECTORY = 3;
const FILETYPE_REGULAR_FILE = 4;

const PREOPENED_ROOT_FD = 3;
const OFLAGS_CREAT = 1;

class ProgramExit {
  constructor(readonly code: number) {}
}

export interface ProgramRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Files the program created, by the path it gave (relative to `/`). */
  files: Map<string, Uint8Array>;
}

class MemoryFile {
  bytes = new Uint8Array(64 * 1024);
  length = 0;
  position = 0;

  write(chunk: Uint8Array): void {
    const end = this.position + chunk.length;
    if (end > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, end));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    this.bytes.set(chunk, this.position);
    this.position = end;
    this.length = Math.max(this.length, end);
  }
}

/** One instantiated WASI command program, runnable again and again with different arguments. */
export class InMemoryWasiProgram {
  private readonly instance: WebAssembly.Instance;
  private readonly memory: WebAssembly.Memory;
  private args: Uint8Array[] = [];
  private stdout: number[] = [];
  private stderr: number[] = [];
  private openFiles = new Map<number, { path: string; file: MemoryFile }>();
  private nextFd = PREOPENED_ROOT_FD + 1;
  private usable = true;
  private fresh = true;

  /** The linear memory of a new instance of `module`: the image every later run starts from. */
  static pristineMemory(module: WebAssembly.Module): Uint8Array {
    return new Uint8Array(new InMemoryWasiProgram(module, new Uint8Array(0)).memory.buffer).slice();
  }

  constructor(module: WebAssembly.Module, private readonly pristine: Uint8Array) {
    this.instance = new WebAssembly.Instance(module, { wasi_snapshot_preview1: this.imports() });
    this.memory = this.instance.exports.memory as WebAssembly.Memory;
  }

  /** Bytes of linear memory this instance holds now (grows while programs run, never shrinks). */
  get memoryBytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** False once a run ended abnormally; such an instance must not run again. */
  get reusable(): boolean {
    return this.usable;
  }

  run(args: string[]): ProgramRun {
    if (!this.usable) throw new Error("this WASI instance ended abnormally and cannot run again");
    this.usable = false;
    if (!this.fresh) {
      const memory = new Uint8Array(this.memory.buffer);
      memory.set(this.pristine);
      memory.fill(0, this.pristine.length);
    }
    this.fresh = false;
    const encoder = new TextEncoder();
    this.args = args.map((arg) => encoder.encode(`${arg}\0`));
    this.stdout = [];
    this.stderr = [];
    this.openFiles = new Map();
    this.nextFd = PREOPENED_ROOT_FD + 1;
    let exitCode = 0;
    try {
      (this.instance.exports._start as () => void)();
    } catch (error) {
      if (!(error instanceof ProgramExit)) throw error;
      exitCode = error.code;
    }
    // Only a normal return leaves the stack pointer where a later run expects it.
    this.usable = exitCode === 0 && this.pristine.length > 0;
    const decoder = new TextDecoder();
    const files = new Map<string, Uint8Array>();
    for (const { path, file } of this.openFiles.values()) files.set(path, file.bytes.subarray(0, file.length));
    return {
      exitCode,
      stdout: decoder.decode(new Uint8Array(this.stdout)),
      stderr: decoder.decode(new Uint8Array(this.stderr)),
      files,
    };
  }

  private view(): DataView {
    return new DataView(this.memory.buffer);
  }

  private bytes(): Uint8Array {
    return new Uint8Array(this.memory.buffer);
  }

  private imports(): Record<string, (...args: never[]) => number> {
    return {
      args_sizes_get: (countPtr: number, sizePtr: number) => {
        const view = this.view();
        view.setUint32(countPtr, this.args.length, true);
        view.setUint32(sizePtr, this.args.reduce((sum, arg) => sum + arg.length, 0), true);
        return ESUCCESS;
      },
      args_get: (pointersPtr: number, bufferPtr: number) => {
        const view = this.view();
        const memory = this.bytes();
        for (const arg of this.args) {
          view.setUint32(pointersPtr, bufferPtr, true);
          memory.set(arg, bufferPtr);
          pointersPtr += 4;
          bufferPtr += arg.length;
        }
        return ESUCCESS;
      },
      clock_time_get: (_clockId: number, _precision: bigint, timePtr: number) => {
        this.view().setBigUint64(timePtr, BigInt(Math.round(performance.now() * 1e6)), true);
        return ESUCCESS;
      },
      fd_close: (fd: number) => (this.openFiles.has(fd) || fd <= PREOPENED_ROOT_FD ? ESUCCESS : EBADF),
      fd_fdstat_get: (fd: number, statPtr: number) => {
        const type =
          fd <= 2 ? FILETYPE_CHARACTER_DEVICE
          : fd === PREOPENED_ROOT_FD ? FILETYPE_DIRECTORY
          : this.openFiles.has(fd) ? FILETYPE_REGULAR_FILE
          : null;
        if (type === null) return EBADF;
        const view = this.view();
        view.setUint8(statPtr, type);
        view.setUint16(statPtr + 2, 0, true);
        view.setBigUint64(statPtr + 8, 0xffff_ffffn, true); // rights: everything
        view.setBigUint64(statPtr + 16, 0xffff_ffffn, true);
        return ESUCCESS;
      },
      fd_fdstat_set_flags: () => ESUCCESS,
      fd_prestat_get: (fd: number, prestatPtr: number) => {
        if (fd !== PREOPENED_ROOT_FD) return EBADF;
        const view = this.view();
        view.setUint8(prestatPtr, 0); // a directory
        view.setUint32(prestatPtr + 4, 1, true); // name length of "/"
        return ESUCCESS;
      },
      fd_prestat_dir_name: (fd: number, namePtr: number, nameLength: number) => {
        if (fd !== PREOPENED_ROOT_FD || nameLength < 1) return EBADF;
        this.bytes()[namePtr] = 0x2f; // "/"
        return ESUCCESS;
      },
      fd_read: (_fd: number, _iovs: number, _iovCount: number, readPtr: number) => {
        this.view().setUint32(readPtr, 0, true); // stdin and our files read as empty
        return ESUCCESS;
      },
      fd_seek: (fd: number, offset: bigint, whence: number, resultPtr: number) => {
        const open = this.openFiles.get(fd);
        if (!open) return fd <= 2 ? ESPIPE : EBADF;
        const base = whence === 0 ? 0 : whence === 1 ? open.file.position : open.file.length;
        const position = base + Number(offset);
        if (position < 0) return EINVAL;
        open.file.position = position;
        this.view().setBigUint64(resultPtr, BigInt(position), true);
        return ESUCCESS;
      },
      fd_write: (fd: number, iovsPtr: number, iovCount: number, writtenPtr: number) => {
        const open = this.openFiles.get(fd);
        if (!open && fd !== 1 && fd !== 2) return EBADF;
        const view = this.view();
        const memory = this.bytes();
        let written = 0;
        for (let i = 0; i < iovCount; i++) {
          const start = view.getUint32(iovsPtr + i * 8, true);
          const length = view.getUint32(iovsPtr + i * 8 + 4, true);
          const chunk = memory.subarray(start, start + length);
          if (open) open.file.write(chunk);
          else for (const byte of chunk) (fd === 1 ? this.stdout : this.stderr).push(byte);
          written += length;
        }
        view.setUint32(writtenPtr, written, true);
        return ESUCCESS;
      },
      path_open: (
        dirFd: number,
        _lookupFlags: number,
        pathPtr: number,
        pathLength: number,
        openFlags: number,
        _rightsBase: bigint,
        _rightsInheriting: bigint,
        _fdFlags: number,
        fdPtr: number,
      ) => {
        if (dirFd !== PREOPENED_ROOT_FD) return EBADF;
        // Programs may only create output files; there is nothing to read.
        if (!(openFlags & OFLAGS_CREAT)) return ENOENT;
        const path = new TextDecoder().decode(this.bytes().slice(pathPtr, pathPtr + pathLength));
        if (path.includes("..")) return ENOTCAPABLE;
        const fd = this.nextFd++;
        this.openFiles.set(fd, { path, file: new MemoryFile() });
        this.view().setUint32(fdPtr, fd, true);
        return ESUCCESS;
      },
      proc_exit: (code: number) => {
        throw new ProgramExit(code);
      },
    };
  }
}
