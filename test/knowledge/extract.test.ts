// Text extraction for knowledge sources: each format from real bytes, format detection and its errors.
import { describe, expect, test } from "bun:test";
import { extractText, PAGE_BREAK, SUPPORTED_TYPES, UnreadableDocument, UnsupportedFormat } from "../../src/knowledge/extract/index.ts";
import { buildPdf } from "../helpers/pdf.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);
const latin = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

describe("plain text and encodings", () => {
  test("UTF-8: BOM stripped, CRLF normalised, blank-line runs collapsed", async () => {
    const result = await extractText({ bytes: utf8("\ufeffLine one\r\nLine two  \r\n\r\n\r\n\r\nPara ünïcödé ✓"), filename: "notes.txt" });
    expect(result).toEqual({ text: "Line one\nLine two\n\nPara ünïcödé ✓", format: "text" });
  });

  test("bytes that are not UTF-8 are read as windows-1252 instead of failing", async () => {
    // "Café “quoted” – 50€" as Windows Notepad saves it.
    const bytes = Uint8Array.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x93, 0x71, 0x75, 0x6f, 0x74, 0x65, 0x64, 0x94, 0x20, 0x96, 0x20, 0x35, 0x30, 0x80]);
    expect((await extractText({ bytes, contentType: "text/plain" })).text).toBe("Café “quoted” – 50€");
  });

  test("UTF-16 with a byte-order mark", async () => {
    const le = new Uint8Array([0xff, 0xfe, ...[..."Grüße"].flatMap((c) => [c.charCodeAt(0), 0])]);
    expect((await extractText({ bytes: le, filename: "export.txt" })).text).toBe("Grüße");
  });
});

describe("markdown", () => {
  test("stays markdown; front matter is dropped and gives the title", async () => {
    const md = '---\ntitle: "Support guide"\nlayout: doc\n---\n# Welcome\r\n\r\nSome *text*.\n\n## Billing\n\nPay monthly.\n';
    expect(await extractText({ bytes: utf8(md), filename: "guide.md" })).toEqual({
      text: "# Welcome\n\nSome *text*.\n\n## Billing\n\nPay monthly.",
      title: "Support guide",
      format: "markdown",
    });
  });

  test("without front matter the first H1 is the title", async () => {
    const result = await extractText({ bytes: utf8("Intro\n\n# The Title #\n\nBody"), contentType: "text/markdown; charset=utf-8" });
    expect(result.title).toBe("The Title");
  });
});

describe("html", () => {
  const page = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Acme &amp; Co &mdash; Help</title>
<style>.x { color: red }</style><script>document.write("<p>injected</p>")</script></head>
<body>
<header class="site"><a href="/">Acme logo</a><nav><ul><li><a href="/">Home</a></li><li>Pricing page</li></ul></nav></header>
<div role="navigation">Breadcrumbs</div>
<main>
  <article>
    <header><h1>Getting <em>started</em></h1><p>By Ada</p></header>
    <p>Welcome to Acme&nbsp;support.   Caf&eacute; &#8220;quotes&#8221; &#150; dash &#x1F600; AT&T &copy 2024 &lt;tag&gt;</p>
    <h2>Install<br>steps</h2>
    <ol><li><p>Download the app</p></li><li>Run   the
      installer</li><li></li></ol>
    <h3></h3>
    <ul><li>Unordered item</li></ul>
    <table><caption>Plans</caption>
      <thead><tr><th>Plan</th><th>Price</th></tr></thead>
      <tbody><tr><td>Pro</td><td>$10</td></tr><tr><td>Team<td>$30</tr></tbody>
    </table>
    <table><tr><td>left</td><td>right</td></tr><tr><td>down</td><td>under</td></tr></table>
    <pre>if (x) {
    y();
}</pre>
    <div hidden>Hidden text</div><span aria-hidden="true">Icon text</span>
    <form><label>Subscribe to newsletter</label><button>Go</button></form>
    <!-- a comment <p>not text</p> -->
  </article>
  <aside>Related posts</aside>
</main>
<footer>© Acme Inc. All rights reserved.</footer>
<noscript>Please enable JavaScript</noscript>
</body></html>`;

  test("keeps headings, paragraphs, list items and table cells as lines; takes <title>", async () => {
    const result = await extractText({ bytes: utf8(page), contentType: "text/html; charset=utf-8" });
    expect(result.format).toBe("html");
    expect(result.title).toBe("Acme & Co — Help");
    expect(result.text).toBe(
      [
        "# Getting started",
        "",
        "By Ada",
        "",
        "Welcome to Acme support. Café “quotes” – dash 😀 AT&T © 2024 <tag>",
        "",
        "## Install steps",
        "",
        "1. Download the app",
        "2. Run the installer",
        "",
        "- Unordered item",
        "",
        "Plans",
        "",
        "Plan: Pro; Price: $10",
        "",
        "Plan: Team; Price: $30",
        "",
        "left | right",
        "down | under",
        "",
        "if (x) {",
        "    y();",
        "}",
      ].join("\n"),
    );
  });

  test("drops scripts, styles, navigation, banners, sidebars, footers, forms and hidden elements", async () => {
    const { text } = await extractText({ bytes: utf8(page), filename: "page.html" });
    for (const boilerplate of ["injected", "color", "Acme logo", "Home", "Pricing page", "Breadcrumbs", "Hidden text", "Icon text", "newsletter", "Related posts", "rights reserved", "JavaScript", "not text", "Help"]) {
      expect(text).not.toContain(boilerplate);
    }
  });

  test("without <title> the first H1 names the page; unclosed chrome does not swallow the page", async () => {
    const result = await extractText({ bytes: utf8("<h1>FAQ &amp; help</h1><nav>Menu<p>Question one?</p>"), filename: "faq.htm" });
    expect(result).toEqual({ text: "# FAQ & help\n\nMenu\n\nQuestion one?", title: "FAQ & help", format: "html" });
  });
});

describe("csv", () => {
  test("rows become `Header: value` lines; quoted commas, newlines and quotes; BOM", async () => {
    const csv = '\ufeffName,Notes,Price\r\n"Smith, Ada","Line one\r\nLine two with ""quotes""",10\r\nBob,,20\r\n,,\r\n';
    expect(await extractText({ bytes: utf8(csv), filename: "people.csv" })).toEqual({
      text: 'Name: Smith, Ada; Notes: Line one Line two with "quotes"; Price: 10\n\nName: Bob; Price: 20',
      format: "csv",
    });
  });

  test("semicolon-delimited (European Excel) with decimal commas, and a missing header", async () => {
    const csv = "Product;Price;\nWidget;1,50;extra\n";
    expect((await extractText({ bytes: utf8(csv), contentType: "text/csv" })).text).toBe("Product: Widget; Price: 1,50; Column 3: extra");
  });

  test("Excel's sep= hint line, tabs, and windows-1252 bytes", async () => {
    const hinted = await extractText({ bytes: utf8("sep=|\nA|B\n1|2, 3\n"), filename: "x.csv" });
    expect(hinted.text).toBe("A: 1; B: 2, 3");
    const tabs = await extractText({ bytes: latin("Ort\tPreis\nZürich\t5 €\n".replace("€", "\x80")), filename: "orte.csv", contentType: "application/vnd.ms-excel" });
    expect(tabs).toEqual({ text: "Ort: Zürich; Preis: 5 €", format: "csv" });
  });

  test("a header-only file yields the header", async () => {
    expect((await extractText({ bytes: utf8("a,b,c\n"), filename: "empty.csv" })).text).toBe("a; b; c");
  });
});

describe("pdf", () => {
  const pdf = buildPdf({
    title: "Parley (test) manual",
    pages: [
      ["Page one begins here.", "Café prices are listed (in euros)."],
      ["Second page text.", "Back\\slash kept."],
      ["Third and last page."],
    ],
  });

  test("text per page, pages separated by a page break, title from the Info dictionary", async () => {
    const result = await extractText({ bytes: pdf, filename: "manual.pdf", contentType: "application/pdf" });
    expect(result.format).toBe("pdf");
    expect(result.title).toBe("Parley (test) manual");
    expect(result.text.split(PAGE_BREAK)).toEqual([
      "Page one begins here.\nCafé prices are listed (in euros).",
      "Second page text.\nBack\\slash kept.",
      "Third and last page.",
    ]);
  });

  test("recognised by its magic bytes alone, and the caller's bytes are left intact", async () => {
    const copy = pdf.slice();
    const result = await extractText({ bytes: copy });
    expect(result.format).toBe("pdf");
    expect(copy.byteLength).toBe(pdf.byteLength);
    expect(Buffer.from(copy).equals(Buffer.from(pdf))).toBe(true);
  });

  test("a corrupt PDF is UnreadableDocument, not a crash", async () => {
    const broken = utf8("%PDF-1.4\nthis is not really a pdf\n%%EOF\n");
    await expect(extractText({ bytes: broken, filename: "broken.pdf" })).rejects.toBeInstanceOf(UnreadableDocument);
    await expect(extractText({ bytes: broken, filename: "broken.pdf" })).rejects.toThrow("The PDF could not be read");
  });
});

describe("format detection", () => {
  const cases: { name: string; input: { filename?: string; contentType?: string }; bytes?: Uint8Array; format: string }[] = [
    { name: "content type beats the extension", input: { filename: "page.txt", contentType: "text/html" }, format: "html" },
    { name: "extension beats a vague content type", input: { filename: "readme.md", contentType: "application/octet-stream" }, format: "markdown" },
    { name: "extension beats text/plain", input: { filename: "data.CSV", contentType: "text/plain" }, format: "csv" },
    { name: "text/plain alone", input: { contentType: "text/plain" }, format: "text" },
    { name: "sniffed HTML", input: {}, bytes: utf8("\n<!-- x -->\n<!doctype html><p>Hi</p>"), format: "html" },
    { name: "sniffed HTML after a BOM", input: {}, bytes: utf8("\ufeff<!DOCTYPE HTML>\n<title>T</title>"), format: "html" },
    { name: "sniffed HTML despite a vague type", input: { contentType: "application/octet-stream" }, bytes: utf8("<HTML><body>Hi</body></HTML>"), format: "html" },
    { name: "no type, no extension, text bytes", input: { filename: "README" }, format: "text" },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      expect((await extractText({ bytes: c.bytes ?? utf8("a,b\n1,2"), ...c.input })).format).toBe(c.format as never);
    });
  }

  test("unsupported types are refused with the supported ones listed", async () => {
    const refusals = [
      { bytes: utf8('{"a":1}'), filename: "data.json" },
      { bytes: utf8("hello"), contentType: "application/json" },
      { bytes: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), filename: "photo.png", contentType: "image/png" },
      { bytes: Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]), filename: "report.txt" }, // a zip, mislabelled
      { bytes: Uint8Array.from([0, 1, 2, 3]) },
    ];
    for (const input of refusals) {
      const error = await extractText(input).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(UnsupportedFormat);
      const message = (error as Error).message;
      for (const listed of [...SUPPORTED_TYPES.contentTypes, ...SUPPORTED_TYPES.extensions]) expect(message).toContain(listed);
    }
    const error = await extractText({ bytes: utf8("x"), filename: "a.docx", contentType: "application/msword" }).catch((e) => e);
    expect(error.message).toStartWith("Unsupported file type (application/msword, .docx). Supported: text/plain (.txt)");
    expect(error.supported).toBe(SUPPORTED_TYPES);
  });
});
