// Reading CSV as it arrives: RFC 4180 quoting (delimiters, doubled quotes and line breaks inside
// quotes), CRLF/LF/CR line ends, a byte-order mark, and the delimiter spreadsheets pick by locale
// (comma, semicolon or tab), guessed from the header line.

export interface CsvRecord {
  /** Physical line the record starts on (1-based), for people finding it in their sheet. */
  line: number;
  cells: string[];
}

/** The file cannot be read as CSV: not text, or a quote never closed. */
export class CsvFormatError extends Error {
  constructor(readonly line: number, message: string) {
    super(message);
  }
}

const DELIMITERS = [",", ";", "\t"] as const;

/** Decodes UTF-8 (or UTF-16 with its byte-order mark), refusing bytes that are not text. */
class StrictDecoder {
  private decoder: TextDecoder | null = null;
  /** Decodes the same bytes leniently, holding the same partial character, so an error can be placed. */
  private loose: TextDecoder | null = null;
  private head: Uint8Array = new Uint8Array(0);
  private lines = 1;

  push(bytes: Uint8Array, last: boolean): string {
    if (!this.decoder) {
      // The BOM decides the encoding; wait for enough bytes to see it.
      const joined = concat(this.head, bytes);
      if (joined.length < 3 && !last) {
        this.head = joined;
        return "";
      }
      this.decoder = new TextDecoder(encodingOf(joined), { fatal: true, ignoreBOM: false });
      this.loose = new TextDecoder(encodingOf(joined), { ignoreBOM: false });
      bytes = joined;
    }
    // Both decoders see every chunk: a character split across chunks must not look like the bad byte.
    const loose = this.loose!.decode(bytes, { stream: !last });
    try {
      const text = this.decoder.decode(bytes, { stream: !last });
      // NUL is valid UTF-8 but never CSV text: it is what UTF-16 without a byte-order mark looks like.
      const nul = text.indexOf("\0");
      if (nul !== -1) {
        const line = this.lines + countLines(text.slice(0, nul));
        throw new CsvFormatError(line, `is not UTF-8 text: NUL bytes on line ${line} (UTF-16 without a byte-order mark?); save the file as "CSV UTF-8"`);
      }
      this.lines += countLines(text);
      return text;
    } catch (error) {
      if (error instanceof CsvFormatError) throw error;
      // Find the line of the first undecodable byte for the message.
      const line = this.lines + countLines(loose.slice(0, Math.max(0, loose.indexOf("\uFFFD"))));
      throw new CsvFormatError(line, `is not UTF-8 text (line ${line}); save the file as "CSV UTF-8"`);
    }
  }
}

function encodingOf(bytes: Uint8Array): "utf-8" | "utf-16le" | "utf-16be" {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return "utf-8";
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** The delimiter that splits the header line into the most cells (outside quotes). */
export function guessDelimiter(headerLine: string): string {
  let best: string = ",";
  let bestCount = 0;
  for (const delimiter of DELIMITERS) {
    let count = 0;
    let quoted = false;
    for (const char of headerLine) {
      if (char === '"') quoted = !quoted;
      else if (!quoted && char === delimiter) count++;
    }
    if (count > bestCount) {
      best = delimiter;
      bestCount = count;
    }
  }
  return best;
}

/**
 * Yields records as the bytes stream in. Blank lines are skipped. Throws CsvFormatError for
 * bytes that are not text or a quote never closed, and `onBytes` may throw to stop a body that grows past a limit.
 */
export async function* readCsv(stream: ReadableStream<Uint8Array>, onBytes: (total: number) => void = () => {}): AsyncGenerator<CsvRecord> {
  const decoder = new StrictDecoder();
  const parser = new CsvParser();
  let total = 0;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (value) {
        total += value.byteLength;
        onBytes(total);
      }
      const text = decoder.push(value ?? new Uint8Array(0), done);
      yield* parser.push(text);
      if (done) break;
    }
    yield* parser.finish();
  } finally {
    // Released, not cancelled: what is left of an HTTP body is the server's to drain before it closes.
    reader.releaseLock();
  }
}

const enum State {
  CellStart,
  Unquoted,
  Quoted,
  /** A quote inside a quoted cell: the next character says whether it was doubled or closing. */
  QuoteInQuoted,
}

/** The state machine: text in, whole records out; a record (or a quote pair) may span chunks. */
class CsvParser {
  private delimiter: string | null = null;
  private pending = "";
  private cells: string[] = [];
  private cell = "";
  private state = State.CellStart;
  private line = 1;
  private recordLine = 1;
  private afterCr = false;
  /** The last character inside quotes was CR: a LF next (maybe in the next chunk) ends the same line. */
  private quotedCr = false;

  *push(text: string): Generator<CsvRecord> {
    if (this.delimiter === null) {
      // Buffer until the header line is whole, then pick the delimiter from it.
      this.pending += text;
      const end = this.pending.search(/[\r\n]/);
      if (end === -1) return;
      this.delimiter = guessDelimiter(this.pending.slice(0, end));
      text = this.pending;
      this.pending = "";
    }
    yield* this.consume(text);
  }

  *finish(): Generator<CsvRecord> {
    if (this.delimiter === null) {
      this.delimiter = guessDelimiter(this.pending);
      yield* this.consume(this.pending);
    }
    if (this.state === State.Quoted) throw new CsvFormatError(this.recordLine, `a quoted cell on line ${this.recordLine} is never closed`);
    const record = this.endRecord();
    if (record) yield record;
  }

  private *consume(text: string): Generator<CsvRecord> {
    const delimiter = this.delimiter!;
    let i = 0;
    while (i < text.length) {
      const char = text[i];
      if (this.afterCr) {
        this.afterCr = false;
        if (char === "\n") {
          i++; // CRLF is one line end
          continue;
        }
      }
      if (this.state === State.Quoted) {
        // Plain text runs are copied as one slice: a cell is one string, not a rope of characters.
        let end = i;
        while (end < text.length && text[end] !== '"' && text[end] !== "\n" && text[end] !== "\r") end++;
        if (end > i) {
          this.cell += text.slice(i, end);
          this.quotedCr = false;
          i = end;
          continue;
        }
        const afterCr = this.quotedCr;
        this.quotedCr = char === "\r";
        if (char === '"') this.state = State.QuoteInQuoted;
        else {
          if (char === "\r" || (char === "\n" && !afterCr)) this.line++;
          this.cell += char;
        }
        i++;
        continue;
      }
      if (this.state === State.QuoteInQuoted && char === '"') {
        this.cell += '"';
        this.state = State.Quoted;
        i++;
      } else if (char === delimiter) {
        this.cells.push(this.cell);
        this.cell = "";
        this.state = State.CellStart;
        i++;
      } else if (char === "\n" || char === "\r") {
        this.afterCr = char === "\r";
        const record = this.endRecord();
        this.line++;
        this.recordLine = this.line;
        i++;
        if (record) yield record;
      } else if (char === '"' && this.state === State.CellStart) {
        this.state = State.Quoted;
        i++;
      } else {
        // Text after a closing quote, or quotes inside an unquoted cell: kept as written, as spreadsheets do.
        let end = i + 1;
        while (end < text.length && text[end] !== delimiter && text[end] !== "\n" && text[end] !== "\r") end++;
        this.cell += text.slice(i, end);
        this.state = State.Unquoted;
        i = end;
      }
    }
  }

  private endRecord(): CsvRecord | null {
    const quotedEmpty = this.state === State.QuoteInQuoted;
    this.cells.push(this.cell);
    const cells = this.cells;
    this.cells = [];
    this.cell = "";
    this.state = State.CellStart;
    const blank = cells.length === 1 && cells[0].trim() === "" && !quotedEmpty;
    return blank ? null : { line: this.recordLine, cells };
  }
}
