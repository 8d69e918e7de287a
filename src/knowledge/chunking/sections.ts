// Headings cut a document into sections; each chunk stays inside one and knows its heading path.
// Headings are Markdown ATX lines (`## Pricing`, also what the HTML extractor writes) and Setext
// underlines (`Pricing` over `=====`), which plain-text documents use too.

export interface Section {
  /** "Guide > Install > Linux": the enclosing headings, outermost first; undefined before the first. */
  heading?: string;
  /** The body, heading line excluded, as offsets into the text. */
  start: number;
  end: number;
}

const ATX = /^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_OR_TABLE = /^\s*(?:[-*+•]|\d+[.)])\s|\|/;

export function splitSections(text: string): Section[] {
  const lines = lineOffsets(text);
  const sections: Section[] = [];
  const path: { level: number; title: string }[] = [];
  let bodyStart = 0;
  let fence: string | null = null;

  const startSection = (headingStart: number, bodyFrom: number, level: number, title: string) => {
    sections.push({ heading: headingOf(path), start: bodyStart, end: headingStart });
    while (path.length > 0 && path.at(-1)!.level >= level) path.pop();
    path.push({ level, title });
    bodyStart = bodyFrom;
  };

  for (let i = 0; i < lines.length; i++) {
    const { start, end } = lines[i];
    const line = text.slice(start, end);
    // `# comment` inside a fenced code block is code, not a heading.
    const fenceMark = FENCE.exec(line)?.[1];
    if (fenceMark && (fence === null || fenceMark.startsWith(fence))) {
      fence = fence === null ? fenceMark[0].repeat(3) : null;
      continue;
    }
    if (fence !== null) continue;

    const atx = ATX.exec(line);
    if (atx) {
      startSection(start, lines[i + 1]?.start ?? text.length, atx[1].length, cleanTitle(atx[2]));
      continue;
    }
    const next = lines[i + 1];
    const underline = next && SETEXT_UNDERLINE.exec(text.slice(next.start, next.end));
    const previousBlank = i === 0 || !text.slice(lines[i - 1].start, lines[i - 1].end).trim();
    // Only a lone line under a blank one, so a `---` rule after a paragraph stays a rule.
    if (underline && previousBlank && line.trim() && !LIST_OR_TABLE.test(line)) {
      startSection(start, lines[i + 2]?.start ?? text.length, underline[1][0] === "=" ? 1 : 2, cleanTitle(line));
      i++;
    }
  }
  sections.push({ heading: headingOf(path), start: bodyStart, end: text.length });
  return sections.filter((s) => text.slice(s.start, s.end).trim());
}

function headingOf(path: { title: string }[]): string | undefined {
  return path.length > 0 ? path.map((h) => h.title).join(" > ") : undefined;
}

/** Emphasis and link markup add nothing to a heading path. */
function cleanTitle(title: string): string {
  return title
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/(\*\*|__|`)(.+?)\1/g, "$2")
    .trim();
}

function lineOffsets(text: string): { start: number; end: number }[] {
  const lines: { start: number; end: number }[] = [];
  let start = 0;
  while (start <= text.length) {
    const newline = text.indexOf("\n", start);
    const end = newline < 0 ? text.length : newline;
    lines.push({ start, end: text[end - 1] === "\r" ? end - 1 : end });
    if (newline < 0) break;
    start = newline + 1;
  }
  return lines;
}
