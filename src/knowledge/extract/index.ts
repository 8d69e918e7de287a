// Uploaded or fetched knowledge sources → plain text the chunker can split (Markdown-style headings kept).
import { csvToText } from "./csv.ts";
import { decodeText } from "./decode.ts";
import { detectFormat, type DocumentFormat, type UploadDescription } from "./formats.ts";
import { htmlToText } from "./html.ts";
import { markdownToText } from "./markdown.ts";
import { pdfToText } from "./pdf.ts";

export { SUPPORTED_TYPES, UnreadableDocument, UnsupportedFormat, describeSupportedTypes, detectFormat, type DocumentFormat } from "./formats.ts";
export { PAGE_BREAK } from "./pdf.ts";

export interface ExtractedText {
  text: string;
  title?: string;
  format: DocumentFormat;
}

/**
 * Throws UnsupportedFormat (→ 415) for anything but text, Markdown, HTML, CSV and PDF, and
 * UnreadableDocument (→ 422) for a PDF that cannot be opened. A scanned PDF yields empty text.
 */
export async function extractText(input: UploadDescription): Promise<ExtractedText> {
  const format = detectFormat(input);
  if (format === "pdf") {
    const { text, title } = await pdfToText(input.bytes);
    return { text: tidy(text), title, format };
  }
  const decoded = decodeText(input.bytes).replace(/\r\n?/g, "\n");
  switch (format) {
    case "markdown": {
      const { text, title } = markdownToText(decoded);
      return { text: tidy(text), title, format };
    }
    case "html": {
      const { text, title } = htmlToText(decoded);
      return { text: tidy(text), title, format };
    }
    case "csv":
      return { text: tidy(csvToText(decoded)), format };
    default:
      return { text: tidy(decoded), format };
  }
}

/** One line ending, no control characters, no trailing blanks, at most one empty line in a row. */
function tidy(text: string): string {
  return text
    .replace(/\r\n?|\u2028|\u2029/g, "\n")
    .replace(/[\u0000-\u0008\u000b\u000e-\u001f\u007f\ufeff]/g, "")
    .replace(/[ \t\u00a0]+$/gm, "")
    .replace(/\n[ \t]*\n(?:[ \t]*\n)+/g, "\n\n")
    .replace(/^\s+|\s+$/g, "");
}
