// Which document formats a knowledge source may be, and how an upload is recognised as one.
import { looksLikeText } from "./decode.ts";

export type DocumentFormat = "text" | "markdown" | "html" | "csv" | "pdf";

/** The canonical content types and extensions, for a 415 answer and the API docs. */
export const SUPPORTED_TYPES = {
  contentTypes: ["text/plain", "text/markdown", "text/html", "text/csv", "application/pdf"],
  extensions: [".txt", ".md", ".markdown", ".html", ".htm", ".csv", ".pdf"],
} as const;

const CONTENT_TYPES: Record<string, DocumentFormat> = {
  "text/plain": "text",
  "text/markdown": "markdown",
  "text/x-markdown": "markdown",
  "text/html": "html",
  "application/xhtml+xml": "html",
  "text/csv": "csv",
  "application/csv": "csv",
  "text/x-csv": "csv",
  "text/comma-separated-values": "csv",
  "application/pdf": "pdf",
  "application/x-pdf": "pdf",
};

const EXTENSIONS: Record<string, DocumentFormat> = {
  ".txt": "text",
  ".md": "markdown",
  ".markdown": "markdown",
  ".html": "html",
  ".htm": "html",
  ".csv": "csv",
  ".pdf": "pdf",
};

// Types that say little: browsers and HTTP clients send them for anything (Windows labels .csv as
// Excel, curl and many servers call every text file text/plain), so the extension gets a say first.
const VAGUE_CONTENT_TYPES = new Set([
  "application/octet-stream",
  "binary/octet-stream",
  "application/x-download",
  "application/force-download",
  "application/vnd.ms-excel",
  "text/plain",
]);

export class UnsupportedFormat extends Error {
  readonly supported = SUPPORTED_TYPES;
  constructor(readonly received: string) {
    super(`Unsupported file type${received ? ` (${received})` : ""}. Supported: ${describeSupportedTypes()}`);
    this.name = "UnsupportedFormat";
  }
}

export function describeSupportedTypes(): string {
  return "text/plain (.txt), text/markdown (.md, .markdown), text/html (.html, .htm), text/csv (.csv), application/pdf (.pdf)";
}

export interface UploadDescription {
  bytes: Uint8Array;
  filename?: string;
  contentType?: string;
}

/** Content type, then extension, then the bytes themselves; throws UnsupportedFormat when none says. */
export function detectFormat({ bytes, filename, contentType }: UploadDescription): DocumentFormat {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  const extension = extensionOf(filename);
  const byType = CONTENT_TYPES[type];
  const byExtension = EXTENSIONS[extension];
  const format =
    (byType && !VAGUE_CONTENT_TYPES.has(type) ? byType : undefined) ??
    byExtension ??
    sniff(bytes) ??
    byType ??
    // Nothing declared at all (a paste, a name without extension): text is the honest guess.
    ((!type || VAGUE_CONTENT_TYPES.has(type)) && !extension && looksLikeText(bytes) ? "text" : undefined);
  const declared = [type, extension].filter(Boolean).join(", ");
  if (!format) throw new UnsupportedFormat(declared);
  // A binary file labelled as text would decode to noise and pollute the index.
  if (format !== "pdf" && !looksLikeText(bytes)) throw new UnsupportedFormat(declared ? `binary content labelled ${declared}` : "binary content");
  return format;
}

function extensionOf(filename: string | undefined): string {
  const base = (filename ?? "").split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot).toLowerCase() : "";
}

function sniff(bytes: Uint8Array): DocumentFormat | undefined {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  if (/^\s*%PDF-/.test(head)) return "pdf";
  if (/^(?:ï»¿)?\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html)[\s>]/i.test(head)) return "html";
  return undefined;
}

/** The format is supported but this document cannot be read (corrupt, encrypted). */
export class UnreadableDocument extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UnreadableDocument";
  }
}
