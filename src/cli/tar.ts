// The smallest tar (ustar) that backups need: regular files only, written and read in order. Kept in
// the binary because a backup must restore on an air-gapped box with nothing else installed, and any
// tar program can still open one.
import { closeSync, openSync, readSync, writeSync } from "node:fs";

const BLOCK = 512;

function field(header: Uint8Array, offset: number, length: number, value: string): void {
  header.set(new TextEncoder().encode(value).subarray(0, length), offset);
}

function octal(value: number, length: number): string {
  return value.toString(8).padStart(length - 1, "0") + "\0";
}

/** Appends files to a tar file; `close` writes the end marker. */
export class TarWriter {
  private readonly fd: number;

  constructor(path: string) {
    this.fd = openSync(path, "wx", 0o600);
  }

  /** A file from disk, copied in chunks (a database may be large). */
  addFile(name: string, path: string, size: number): void {
    this.header(name, size, Date.now());
    const fd = openSync(path, "r");
    try {
      const chunk = new Uint8Array(1 << 20);
      for (let position = 0; position < size; ) {
        const read = readSync(fd, chunk, 0, Math.min(chunk.length, size - position), position);
        if (read <= 0) throw new Error(`${path} shrank while it was being archived`);
        writeSync(this.fd, chunk.subarray(0, read));
        position += read;
      }
    } finally {
      closeSync(fd);
    }
    this.pad(size);
  }

  add(name: string, data: Uint8Array, mtimeMs = Date.now()): void {
    this.header(name, data.length, mtimeMs);
    writeSync(this.fd, data);
    this.pad(data.length);
  }

  private pad(size: number): void {
    const padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (padding) writeSync(this.fd, new Uint8Array(padding));
  }

  private header(name: string, size: number, mtimeMs: number): void {
    const bytes = new TextEncoder().encode(name);
    if (bytes.length > 255) throw new Error(`path too long for a tar entry: ${name}`);
    const header = new Uint8Array(BLOCK);
    // Names over 100 bytes are split at a slash into prefix (155) and name (100), as ustar does.
    let prefix = "";
    let short = name;
    if (bytes.length > 100) {
      const cut = name.lastIndexOf("/", 155);
      if (cut < 0 || name.length - cut - 1 > 100) throw new Error(`path cannot be stored in a tar entry: ${name}`);
      prefix = name.slice(0, cut);
      short = name.slice(cut + 1);
    }
    field(header, 0, 100, short);
    field(header, 100, 8, octal(0o600, 8));
    field(header, 108, 8, octal(0, 8));
    field(header, 116, 8, octal(0, 8));
    field(header, 124, 12, octal(size, 12));
    field(header, 136, 12, octal(Math.floor(mtimeMs / 1000), 12));
    field(header, 148, 8, "        ");
    field(header, 156, 1, "0");
    field(header, 257, 6, "ustar\0");
    field(header, 263, 2, "00");
    field(header, 345, 155, prefix);
    const sum = header.reduce((total, byte) => total + byte, 0);
    field(header, 148, 8, sum.toString(8).padStart(6, "0") + "\0 ");
    writeSync(this.fd, header);
  }

  close(): void {
    writeSync(this.fd, new Uint8Array(BLOCK * 2));
    closeSync(this.fd);
  }
}

/** Every regular file of a tar file, in order (a backup's entries are small enough to read whole). */
export function* readTar(path: string): Generator<{ name: string; data: Uint8Array }> {
  const fd = openSync(path, "r");
  try {
    const header = new Uint8Array(BLOCK);
    let position = 0;
    for (;;) {
      if (readSync(fd, header, 0, BLOCK, position) < BLOCK) throw new Error("the archive ends in the middle of an entry");
      position += BLOCK;
      if (header.every((byte) => byte === 0)) return;
      const text = (offset: number, length: number) => new TextDecoder().decode(header.subarray(offset, offset + length)).replace(/\0.*$/s, "");
      const stored = Number.parseInt(text(148, 8).trim(), 8);
      const sum = header.reduce((total, byte, i) => total + (i >= 148 && i < 156 ? 32 : byte), 0);
      if (stored !== sum) throw new Error("the archive is damaged (a header checksum does not match)");
      const size = Number.parseInt(text(124, 12).trim() || "0", 8);
      const prefix = text(345, 155);
      const name = prefix ? `${prefix}/${text(0, 100)}` : text(0, 100);
      const data = new Uint8Array(size);
      if (size && readSync(fd, data, 0, size, position) < size) throw new Error(`the archive ends inside ${name}`);
      position += Math.ceil(size / BLOCK) * BLOCK;
      const type = text(156, 1);
      if (type === "0" || type === "") yield { name, data };
    }
  } finally {
    closeSync(fd);
  }
}
