// CSV → one readable line per row (`Name: Ada; Role: Engineer`), so every row still makes sense when a
// chunk holds it without the header line.

const DELIMITERS = [",", ";", "\t", "|"] as const;

export function csvToText(text: string): string {
  let body = text;
  let delimiter: string | undefined;
  // Excel writes a `sep=;` line first when it uses a non-default delimiter.
  const hint = /^sep=(.)\r?\n/i.exec(body);
  if (hint) {
    delimiter = hint[1];
    body = body.slice(hint[0].length);
  }
  const rows = parseCsv(body, delimiter ?? guessDelimiter(body)).filter((row) => row.some((cell) => cell.trim()));
  if (rows.length === 0) return "";
  const header = rows[0].map(oneLine);
  if (rows.length === 1) return header.filter(Boolean).join("; ");
  // Rows are separated by a blank line: each is its own paragraph, so the chunker never splits one.
  return rows
    .slice(1)
    .map((row) =>
      row
        .map((cell, i) => [header[i] || `Column ${i + 1}`, oneLine(cell)] as const)
        .filter(([, value]) => value)
        .map(([label, value]) => `${label}: ${value}`)
        .join("; "),
    )
    .join("\n\n");
}

/** RFC 4180: quoted fields may hold delimiters, newlines and doubled quotes; CRLF or LF rows. */
export function parseCsv(text: string, delimiter = ","): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let fieldStarted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
      continue;
    }
    if (c === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
    } else if (c === delimiter) {
      row.push(field);
      field = "";
      fieldStarted = false;
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      fieldStarted = false;
    } else {
      field += c;
      fieldStarted = true;
    }
  }
  if (fieldStarted || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** The candidate seen most often, outside quotes, in the header line. */
function guessDelimiter(text: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const c of text) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "\n" || c === "\r")) break;
    else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1);
  }
  let best = ",";
  for (const [d, n] of counts) if (n > counts.get(best)!) best = d;
  return best;
}

function oneLine(cell: string): string {
  return cell.replace(/\s+/g, " ").trim();
}
