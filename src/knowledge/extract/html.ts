// HTML → readable text with its structure kept as lines: headings become Markdown `#` lines (the chunker
// splits on them), list items `- ` lines, table rows one line each. Page chrome is dropped.
// A forgiving tokenizer rather than a DOM: pages are often malformed, and a parser dependency is not needed.
import { decodeEntities } from "./html-entities.ts";

type Token =
  | { kind: "text"; text: string }
  | { kind: "open"; name: string; attrs: Map<string, string>; selfClosing: boolean }
  | { kind: "close"; name: string }
  | { kind: "raw"; name: string; text: string };

// Their content is not markup; dropped, except <title>, which names the document.
const RAW_TEXT = new Set(["script", "style", "title", "textarea", "noscript", "xmp", "iframe", "noembed", "noframes", "template"]);
const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);
// Navigation, sidebars, footers, forms and media: the same on every page of a site, so noise for retrieval.
const CHROME = new Set(["head", "nav", "aside", "footer", "form", "button", "select", "svg", "canvas", "object", "dialog", "menu"]);
const CHROME_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"]);
// Inside these, a <header> is the article's own (title, byline); elsewhere it is the site banner.
const CONTENT_ROOTS = new Set(["main", "article", "section"]);
const PARAGRAPH_BLOCKS = new Set([
  "p", "div", "section", "article", "main", "header", "blockquote", "pre", "ul", "ol", "dl", "table", "figure",
  "figcaption", "hr", "details", "summary", "address", "caption", "center", "fieldset", "hgroup", "body", "legend",
]);
// Stands in for spaces inside <pre> until the whitespace clean-up is done, so code keeps its indentation.
const PRE_SPACE = "\ue000";
const LINE_BLOCKS = new Set(["br", "dt", "dd", "li", "tr"]);

export function htmlToText(html: string): { text: string; title?: string } {
  const tokens = tokenize(html);
  const closes = matchCloses(tokens);
  const writer = new HtmlTextWriter();
  const title = documentTitle(tokens);
  let firstH1: string | undefined;
  let h1Text: string | null = null;
  let contentDepth = 0;
  let preDepth = 0;

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind === "raw") continue;
    if (token.kind === "text") {
      const text = decodeEntities(token.text);
      writer.text(preDepth > 0 ? text.replace(/[ \t]/g, PRE_SPACE) : text.replace(/\s+/g, " "));
      if (h1Text !== null) h1Text += text;
      continue;
    }
    const name = token.name;
    if (token.kind === "open") {
      if (isChrome(token, contentDepth)) {
        const close = closes.get(i);
        if (close !== undefined) i = close;
        continue;
      }
      if (CONTENT_ROOTS.has(name)) contentDepth++;
      if (name === "pre") preDepth++;
      if (name === "h1" && firstH1 === undefined) h1Text = "";
      writer.open(name);
    } else {
      if (CONTENT_ROOTS.has(name)) contentDepth = Math.max(0, contentDepth - 1);
      if (name === "pre") preDepth = Math.max(0, preDepth - 1);
      if (name === "h1" && h1Text !== null) {
        firstH1 = collapse(h1Text) || undefined;
        h1Text = null;
      }
      writer.close(name);
    }
  }
  // Inline whitespace was collapsed per text node; what is left sits at line edges and between nodes.
  const text = writer
    .finish()
    .split("\n")
    .map((line) => line.replace(/[ \t\u00a0]+/g, " ").trim().replaceAll(PRE_SPACE, " "))
    .join("\n");
  return { text, title: title ?? firstH1 };
}

/** The <title> before the body starts: read up front, as the walk skips <head> whole; an SVG's <title> is an icon label. */
function documentTitle(tokens: Token[]): string | undefined {
  for (const token of tokens) {
    if (token.kind === "open" && (token.name === "body" || token.name === "svg")) return undefined;
    if (token.kind === "raw" && token.name === "title") return collapse(decodeEntities(token.text)) || undefined;
  }
  return undefined;
}

function isChrome(token: Extract<Token, { kind: "open" }>, contentDepth: number): boolean {
  if (CHROME.has(token.name)) return true;
  if (token.name === "header" && contentDepth === 0) return true;
  const { attrs } = token;
  if (attrs.has("hidden") || attrs.get("aria-hidden") === "true") return true;
  return CHROME_ROLES.has((attrs.get("role") ?? "").toLowerCase());
}

const TAG_NAME = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)/y;
const ATTRIBUTE = /([^\s"'>\/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;

function tokenize(html: string): Token[] {
  const tokens: Token[] = [];
  const text = (t: string) => t && tokens.push({ kind: "text", text: t });
  const tagEnd = tagEndFinder(html);
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt < 0) {
      text(html.slice(i));
      break;
    }
    text(html.slice(i, lt));
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (html.startsWith("<![CDATA[", lt)) {
      const end = html.indexOf("]]>", lt + 9);
      text(html.slice(lt + 9, end < 0 ? html.length : end));
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (html[lt + 1] === "!" || html[lt + 1] === "?") {
      const end = html.indexOf(">", lt);
      i = end < 0 ? html.length : end + 1;
      continue;
    }
    TAG_NAME.lastIndex = lt;
    const match = TAG_NAME.exec(html);
    if (!match) {
      text("<");
      i = lt + 1;
      continue;
    }
    const gt = tagEnd(TAG_NAME.lastIndex);
    if (gt < 0) {
      // No `>` left anywhere: the rest is text (a browser would drop it; keeping it loses less).
      text(html.slice(lt));
      break;
    }
    i = gt + 1;
    const name = match[2].toLowerCase();
    if (match[1]) {
      tokens.push({ kind: "close", name });
      continue;
    }
    const rawAttrs = html.slice(TAG_NAME.lastIndex, gt);
    const selfClosing = rawAttrs.trimEnd().endsWith("/");
    tokens.push({ kind: "open", name, attrs: parseAttributes(rawAttrs), selfClosing });
    if (RAW_TEXT.has(name) && !selfClosing) {
      const closing = new RegExp(`</${name}\\s*>`, "ig");
      closing.lastIndex = i;
      const end = closing.exec(html);
      tokens.pop();
      tokens.push({ kind: "raw", name, text: html.slice(i, end ? end.index : html.length) });
      i = end ? closing.lastIndex : html.length;
    }
  }
  return tokens;
}

/**
 * Where the tag whose attributes start at `from` ends: the next `>` outside a quoted attribute value,
 * or, when a value's quote never closes, simply the next `>`. No backtracking and no quote search
 * repeated past a known dead end, so hostile markup costs linear time.
 */
function tagEndFinder(html: string): (from: number) => number {
  const unclosedFrom = new Map<string, number>();
  const closingQuote = (quote: string, from: number) => {
    if (from >= (unclosedFrom.get(quote) ?? Infinity)) return -1;
    const at = html.indexOf(quote, from);
    if (at < 0) unclosedFrom.set(quote, from);
    return at;
  };
  let noGreaterThanFrom = Infinity;
  const nextGreaterThan = (from: number) => {
    if (from >= noGreaterThanFrom) return -1;
    const at = html.indexOf(">", from);
    if (at < 0) noGreaterThanFrom = from;
    return at;
  };
  return (from) => {
    for (let j = from; j < html.length; j++) {
      const c = html[j];
      if (c === ">") return j;
      if (c !== "=") continue;
      while (/\s/.test(html[j + 1] ?? "")) j++;
      const quote = html[j + 1];
      if (quote !== '"' && quote !== "'") continue;
      const close = closingQuote(quote, j + 2);
      if (close < 0) return nextGreaterThan(from);
      j = close;
    }
    return -1;
  };
}

function parseAttributes(raw: string): Map<string, string> {
  const attrs = new Map<string, string>();
  for (const m of raw.matchAll(ATTRIBUTE)) {
    const name = m[1].toLowerCase();
    if (!attrs.has(name)) attrs.set(name, decodeEntities(m[2] ?? m[3] ?? m[4] ?? ""));
  }
  return attrs;
}

/** Open-token index → its close-token index, so a dropped element can be skipped whole in one step. */
function matchCloses(tokens: Token[]): Map<number, number> {
  const open = new Map<string, number[]>();
  const closes = new Map<number, number>();
  tokens.forEach((token, i) => {
    if (token.kind === "open" && !token.selfClosing && !VOID.has(token.name)) {
      const stack = open.get(token.name) ?? [];
      stack.push(i);
      open.set(token.name, stack);
    } else if (token.kind === "close") {
      const start = open.get(token.name)?.pop();
      if (start !== undefined) closes.set(start, i);
    }
  });
  return closes;
}

interface TableRow {
  cells: string[];
  header: boolean;
}

interface Table {
  rows: TableRow[];
  row: TableRow | null;
  cellOpen: boolean;
  inHead: boolean;
}

/**
 * Accumulates text with pending line prefixes (`## `, `- `) that are written only when text follows, so
 * empty headings and list items vanish and `<li><p>x</p></li>` still reads `- x`. Tables buffer their
 * cells (one buffer per open table and cell) and are written whole when they close.
 */
class HtmlTextWriter {
  private buffers: TextBuffer[] = [new TextBuffer()];
  private prefix = "";
  private headingDepth = 0;
  private lists: { ordered: boolean; next: number }[] = [];
  private tables: Table[] = [];

  text(text: string) {
    if (!text) return;
    if (this.prefix) {
      if (!text.trim()) return;
      this.emit(this.prefix + text.trimStart());
      this.prefix = "";
      return;
    }
    this.emit(text);
  }

  open(name: string) {
    const table = this.tables.at(-1);
    if (/^h[1-6]$/.test(name)) {
      this.block("\n\n");
      this.prefix = `${"#".repeat(Number(name[1]))} `;
      this.headingDepth++;
    } else if (name === "br") {
      // A break inside a heading must not split it: the chunker reads a heading as one line.
      if (this.headingDepth > 0) this.emit(" ");
      else this.buffers.at(-1)!.lineBreak(1);
    } else if (name === "li") {
      const list = this.lists.at(-1);
      this.block("\n");
      this.prefix = list?.ordered ? `${list.next++}. ` : "- ";
    } else if (name === "ul" || name === "ol") {
      this.block("\n\n");
      this.lists.push({ ordered: name === "ol", next: 1 });
    } else if (name === "table") {
      this.block("\n\n");
      this.tables.push({ rows: [], row: null, cellOpen: false, inHead: false });
      this.buffers.push(new TextBuffer());
    } else if (table && name === "thead") {
      table.inHead = true;
    } else if (table && name === "tr") {
      this.endRow(table);
      table.row = { cells: [], header: table.inHead };
    } else if (table && (name === "td" || name === "th")) {
      this.endCell(table);
      table.row ??= { cells: [], header: table.inHead };
      // A row is a header row when it is in <thead> or made of <th> cells only.
      if (table.row.cells.length === 0) table.row.header = table.inHead || name === "th";
      else if (name === "td" && !table.inHead) table.row.header = false;
      table.cellOpen = true;
      this.buffers.push(new TextBuffer());
    } else if (PARAGRAPH_BLOCKS.has(name)) {
      this.block("\n\n");
    } else if (LINE_BLOCKS.has(name)) {
      this.block("\n");
    }
  }

  close(name: string) {
    const table = this.tables.at(-1);
    if (/^h[1-6]$/.test(name)) {
      this.prefix = "";
      this.headingDepth = Math.max(0, this.headingDepth - 1);
      this.block("\n\n");
    } else if (name === "li") {
      this.prefix = "";
      this.block("\n");
    } else if (name === "ul" || name === "ol") {
      this.lists.pop();
      this.prefix = "";
      this.block("\n\n");
    } else if (table && name === "table") {
      this.endRow(table);
      this.tables.pop();
      // Text inside the table but outside cells is its caption (or whitespace).
      const caption = this.buffers.pop()!.toString().trim();
      this.block("\n\n");
      this.emit(`${caption ? `${caption}\n\n` : ""}${renderTable(table.rows)}`);
      this.block("\n\n");
    } else if (table && name === "thead") {
      this.endRow(table);
      table.inHead = false;
    } else if (table && name === "tr") {
      this.endRow(table);
    } else if (table && (name === "td" || name === "th")) {
      this.endCell(table);
    } else if (PARAGRAPH_BLOCKS.has(name)) {
      this.block("\n\n");
    } else if (LINE_BLOCKS.has(name)) {
      this.block("\n");
    }
  }

  finish(): string {
    while (this.tables.length > 0) this.close("table");
    return this.buffers[0].toString();
  }

  private endCell(table: Table) {
    if (!table.cellOpen) return;
    this.prefix = "";
    table.row!.cells.push(this.buffers.pop()!.toString());
    table.cellOpen = false;
  }

  private endRow(table: Table) {
    this.endCell(table);
    if (table.row && table.row.cells.some((c) => c.trim())) table.rows.push(table.row);
    table.row = null;
  }

  private block(separator: "\n" | "\n\n") {
    if (this.prefix) return;
    // Paragraphs inside list items stay on the item's lines: a list reads as one block.
    this.buffers.at(-1)!.lineBreak(this.lists.length > 0 ? 1 : separator.length);
  }

  private emit(text: string) {
    this.buffers.at(-1)!.write(text);
  }
}

/** Text plus the line breaks owed before the next text: breaks from nested closing tags merge, not stack. */
class TextBuffer {
  private parts: string[] = [];
  private owed = 0;

  lineBreak(count: number) {
    this.owed = Math.max(this.owed, count);
  }

  write(text: string) {
    if (this.owed > 0) {
      if (!text.trim()) return;
      if (this.parts.length > 0) this.parts.push("\n".repeat(this.owed));
      this.owed = 0;
    }
    this.parts.push(text);
  }

  toString(): string {
    return this.parts.join("");
  }
}

/** Header rows turn the rest into `Header: value; …` lines, which survive being chunked apart from the header. */
function renderTable(rows: TableRow[]): string {
  // Data cells read as one line: heading and list markers inside them would only be noise there.
  const cellText = (cell: string) => collapse(cell.replace(/^[ \t]*(?:#{1,6}|[-*]|\d+\.)[ \t]+/gm, ""));
  const layout = rows.some((row) => row.cells.some((cell) => /\n\s*\n/.test(cell.trim())));
  if (layout) {
    // Cells holding paragraphs are page layout, not data: keep their blocks as blocks.
    return rows.flatMap((row) => row.cells.map((cell) => cell.trim())).filter(Boolean).join("\n\n");
  }
  const headerCount = rows.findIndex((row) => !row.header);
  const header = headerCount > 0 ? rows[headerCount - 1].cells.map(cellText) : null;
  const body = headerCount > 0 ? rows.slice(headerCount) : rows;
  if (header && body.length > 0) {
    return body
      .map((row) =>
        row.cells
          .map((cell, i) => [header[i] || `Column ${i + 1}`, cellText(cell)] as const)
          .filter(([, value]) => value)
          .map(([label, value]) => `${label}: ${value}`)
          .join("; "),
      )
      .join("\n\n"); // one paragraph per row, as for CSV, so the chunker never splits a row
  }
  return rows.map((row) => row.cells.map(cellText).join(" | ")).join("\n");
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
