// Builds small, valid PDFs from scratch so extraction tests need no fixtures or PDF library:
// one Helvetica (WinAnsi) text object per page, an Info dictionary and a byte-exact xref table.

export interface PdfSpec {
  /** Lines of text per page; each line is drawn 18 points below the previous one. */
  pages: string[][];
  title?: string;
}

export function buildPdf(spec: PdfSpec): Uint8Array {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);

  add("<< /Type /Catalog /Pages 2 0 R >>");
  const firstPage = 5;
  const kids = spec.pages.map((_, i) => `${firstPage + i * 2} 0 R`).join(" ");
  add(`<< /Type /Pages /Kids [${kids}] /Count ${spec.pages.length} >>`);
  add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  add(spec.title === undefined ? "<< /Producer (parley tests) >>" : `<< /Title ${pdfString(spec.title)} /Producer (parley tests) >>`);
  for (const [i, lines] of spec.pages.entries()) {
    const content = ["BT", "/F1 12 Tf", "72 720 Td", ...lines.flatMap((line, n) => [n === 0 ? "" : "0 -18 Td", `${pdfString(line)} Tj`]).filter(Boolean), "ET"].join("\n");
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${firstPage + i * 2 + 1} 0 R >>`);
    add(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
  }

  // Every character is one byte (checked in pdfString), so string lengths are byte offsets.
  let out = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  for (const [i, body] of objects.entries()) {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  }
  const xrefAt = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 4 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Uint8Array.from(out, (c) => c.charCodeAt(0));
}

/** A literal string in WinAnsi (Latin-1 range here): enough for test text such as "café". */
function pdfString(text: string): string {
  for (const c of text) if (c.charCodeAt(0) > 0xff) throw new Error(`buildPdf: "${c}" is outside Latin-1`);
  return `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;
}
