// Structure-aware chunking: sections by heading, whole sentences, overlap, size bounds, degenerate input.
import { describe, expect, test } from "bun:test";
import { chunkText, DEFAULT_CHUNK_OPTIONS, estimateTokens, validateChunkOptions, type Chunk } from "../../src/knowledge/chunking/index.ts";
import { sentences } from "../../src/knowledge/chunking/spans.ts";
import { extractText } from "../../src/knowledge/extract/index.ts";

/** Deterministic prose: sentences of varying length, each numbered so it can be found again. */
function prose(paragraphs: number, sentencesEach: number, tag = "S"): { text: string; sentences: string[] } {
  const filler = ["the agent answers calls", "callers ask about opening hours", "billing questions go to finance", "refunds take five days", "the office is closed on Sundays"];
  const sentences: string[] = [];
  const paras: string[] = [];
  let n = 0;
  for (let p = 0; p < paragraphs; p++) {
    const these: string[] = [];
    for (let s = 0; s < sentencesEach; s++, n++) {
      const words = Array.from({ length: 1 + (n % 4) }, (_, i) => filler[(n + i) % filler.length]).join(" and ");
      const sentence = `${tag}${n} says ${words}${n % 5 === 0 ? "!" : "."}`;
      these.push(sentence);
    }
    sentences.push(...these);
    paras.push(these.join(" "));
  }
  return { text: paras.join("\n\n"), sentences };
}

function expectWellFormed(text: string, chunks: Chunk[], size: number) {
  chunks.forEach((chunk, i) => {
    expect(chunk.position).toBe(i);
    expect(chunk.text).toBe(text.slice(chunk.start, chunk.end));
    expect(chunk.text).toBe(chunk.text.trim());
    expect(estimateTokens(chunk.text)).toBeLessThanOrEqual(size);
  });
}

describe("chunkText", () => {
  test("empty and blank input give no chunks", () => {
    expect(chunkText("", DEFAULT_CHUNK_OPTIONS)).toEqual([]);
    expect(chunkText(" \n\n\t\n\f\n ", DEFAULT_CHUNK_OPTIONS)).toEqual([]);
    expect(chunkText("# Only a heading\n\n## And another", DEFAULT_CHUNK_OPTIONS)).toEqual([]);
  });

  test("a short text is one chunk", () => {
    expect(chunkText("Hello there. How can I help?", DEFAULT_CHUNK_OPTIONS)).toEqual([
      { text: "Hello there. How can I help?", position: 0, start: 0, end: 28 },
    ]);
  });

  test("headings split sections; each chunk carries its heading path and never crosses one", () => {
    const body = (tag: string) => prose(2, 6, tag).text;
    const text = [
      `Preamble before any heading. ${body("P")}`,
      `# Guide\n\n${body("G")}`,
      `## Install\n\n${body("I")}`,
      "```sh\n# a shell comment, not a heading\necho hi\n```",
      `### Linux\n\n${body("L")}`,
      `## Billing **plans**\n\n${body("B")}`,
      `Appendix\n========\n\n${body("A")}`,
      `Notes\n-----\n\n${body("N")}`,
    ].join("\n\n");
    const chunks = chunkText(text, { size: 80, overlap: 20 });
    expectWellFormed(text, chunks, 80);
    const headingOf = (tag: string) => [...new Set(chunks.filter((c) => new RegExp(`\\b${tag}\\d`).test(c.text)).map((c) => c.heading))];
    expect(headingOf("P")).toEqual([undefined]);
    expect(headingOf("G")).toEqual(["Guide"]);
    expect(headingOf("I")).toEqual(["Guide > Install"]);
    expect(headingOf("L")).toEqual(["Guide > Install > Linux"]);
    expect(headingOf("B")).toEqual(["Guide > Billing plans"]);
    expect(headingOf("A")).toEqual(["Appendix"]);
    expect(headingOf("N")).toEqual(["Appendix > Notes"]);
    // Heading lines are in `heading`, not in the text; the fenced comment stayed content.
    expect(chunks.some((c) => /^#+ |^=+$|^-+$/m.test(c.text.replace(/```sh[\s\S]*```/, "")))).toBe(false);
    expect(chunks.find((c) => c.text.includes("# a shell comment"))?.heading).toBe("Guide > Install");
    // No chunk mixes two sections' sentences.
    for (const chunk of chunks) expect(new Set(chunk.text.match(/\b[PGILBAN](?=\d)/g)).size).toBeLessThanOrEqual(1);
  });

  test("chunks end only at sentence ends, and every sentence is kept whole in some chunk", () => {
    const { text, sentences } = prose(6, 9);
    for (const size of [50, 120, 300]) {
      const chunks = chunkText(text, { size, overlap: 0 });
      expectWellFormed(text, chunks, size);
      expect(chunks.length).toBeGreaterThan(1);
      for (const chunk of chunks) {
        expect(chunk.text).toMatch(/^S\d+ says/);
        expect(chunk.text).toMatch(/[.!]$/);
      }
      for (const sentence of sentences) expect(chunks.some((c) => c.text.includes(sentence))).toBe(true);
      // Without overlap the chunks tile the text: nothing lost, nothing repeated.
      expect(chunks.map((c) => c.text).join(" ").replace(/\s+/g, " ")).toBe(text.replace(/\s+/g, " "));
    }
  });

  test("sentence ends: abbreviations, initials, decimals and list markers are not; quotes and list lines are", () => {
    const text = 'Dr. J. Smith met the U.S. team at 3.30 p.m. on Monday, e.g. to talk. "Then he left!" Was it Fig. 2? Yes…\n1. First step\n2. Second step';
    expect(sentences(text, 0, text.length).map((s) => text.slice(s.start, s.end))).toEqual([
      "Dr. J. Smith met the U.S. team at 3.30 p.m. on Monday, e.g. to talk.",
      '"Then he left!"',
      "Was it Fig. 2?",
      "Yes…",
      "1. First step",
      "2. Second step",
    ]);
  });

  test("the next chunk repeats the end of the previous one, up to `overlap` tokens", () => {
    const { text } = prose(4, 10);
    const overlap = 30;
    const chunks = chunkText(text, { size: 120, overlap });
    expectWellFormed(text, chunks, 120);
    expect(chunks.length).toBeGreaterThan(3);
    for (let i = 1; i < chunks.length; i++) {
      const [previous, next] = [chunks[i - 1], chunks[i]];
      expect(next.start).toBeGreaterThan(previous.start);
      expect(next.start).toBeLessThan(previous.end);
      const repeated = text.slice(next.start, previous.end);
      expect(previous.text.endsWith(repeated)).toBe(true);
      expect(next.text.startsWith(repeated)).toBe(true);
      expect(estimateTokens(repeated)).toBeLessThanOrEqual(overlap);
      // Sentences are short here, so the overlap is whole sentences.
      expect(repeated).toMatch(/^S\d+ says/);
    }
  });

  test("overlap falls back to the last words when the last sentence is longer than `overlap`", () => {
    const long = (n: number) => `Sentence ${n} ${"goes on and on ".repeat(10)}until it ends.`;
    const text = [1, 2, 3, 4, 5, 6].map(long).join(" ");
    const chunks = chunkText(text, { size: 100, overlap: 10 });
    expectWellFormed(text, chunks, 100);
    for (let i = 1; i < chunks.length; i++) {
      const repeated = text.slice(chunks[i].start, chunks[i - 1].end);
      expect(repeated.length).toBeGreaterThan(0);
      expect(estimateTokens(repeated)).toBeLessThanOrEqual(10);
      expect(repeated.endsWith("until it ends.")).toBe(true);
      expect(text[chunks[i].start - 1]).toBe(" "); // starts on a word
    }
  });

  test("overlap never reaches across a heading", () => {
    const text = `# One\n\n${prose(1, 12, "A").text}\n\n# Two\n\n${prose(1, 12, "B").text}`;
    const chunks = chunkText(text, { size: 60, overlap: 25 });
    const firstOfTwo = chunks.find((c) => c.heading === "Two")!;
    expect(firstOfTwo.text).toStartWith("B0 says");
  });

  test("a sentence longer than `size` is cut between words, a word longer than `size` by characters", () => {
    const words = Array.from({ length: 900 }, (_, i) => `word${i}`);
    const sentence = `${words.join(" ")}.`;
    const text = `Short opener. ${sentence} Short closer.`;
    const chunks = chunkText(text, { size: 50, overlap: 10 });
    expectWellFormed(text, chunks, 50);
    for (const chunk of chunks) {
      expect(/\s/.test(text[chunk.start - 1] ?? " ")).toBe(true);
      expect(/\s/.test(text[chunk.end] ?? " ")).toBe(true);
    }
    for (const word of words) expect(chunks.some((c) => c.text.split(/\s/).includes(word) || c.text.split(/\s/).includes(`${word}.`))).toBe(true);
    expect(chunks.at(-1)!.text).toEndWith("Short closer.");

    const blob = "x".repeat(2_000);
    const pieces = chunkText(`Before. ${blob} After.`, { size: 50, overlap: 0 });
    expectWellFormed(`Before. ${blob} After.`, pieces, 50);
    expect(pieces.map((c) => c.text).join("").replace(/[^x]/g, "").length).toBe(2_000);
  });

  test("lists and tables are cut between their lines", () => {
    const items = Array.from({ length: 60 }, (_, i) => `- item ${i} costs ${i * 3} euros and ships in ${i % 7} days`);
    const text = `Price list:\n${items.join("\n")}`;
    const chunks = chunkText(text, { size: 80, overlap: 0 });
    expectWellFormed(text, chunks, 80);
    for (const chunk of chunks) for (const line of chunk.text.split("\n")) expect(line === "Price list:" || items.includes(line)).toBe(true);
  });

  test("CRLF text works like LF text", () => {
    const text = "# Title\r\n\r\nFirst para.\r\n\r\n## Sub\r\n\r\nSecond para.\r\n";
    const chunks = chunkText(text, DEFAULT_CHUNK_OPTIONS);
    expect(chunks.map((c) => [c.heading, c.text])).toEqual([
      ["Title", "First para."],
      ["Title > Sub", "Second para."],
    ]);
  });

  test("extracted HTML headings and CSV rows chunk along their structure", async () => {
    const html = `<h1>FAQ</h1>${Array.from({ length: 8 }, (_, i) => `<h2>Question ${i}?</h2><p>${prose(1, 4, `Q${i}x`).text}</p>`).join("")}`;
    const page = await extractText({ bytes: new TextEncoder().encode(html), contentType: "text/html" });
    const chunks = chunkText(page.text, DEFAULT_CHUNK_OPTIONS);
    expect(chunks.map((c) => c.heading)).toEqual(Array.from({ length: 8 }, (_, i) => `FAQ > Question ${i}?`));

    const csv = ["Name,Team,Phone", ...Array.from({ length: 200 }, (_, i) => `Person ${i},Team ${i % 9},+1 555 01${String(i).padStart(3, "0")}`)].join("\n");
    const sheet = await extractText({ bytes: new TextEncoder().encode(csv), filename: "staff.csv" });
    const rows = chunkText(sheet.text, { size: 100, overlap: 20 });
    for (const chunk of rows) for (const row of chunk.text.split("\n\n")) expect(row).toMatch(/^Name: Person \d+; Team: Team \d; Phone: \+1 555 01\d{3}$/);
  });

  test("every chunk stays within `size` across sizes and overlaps", () => {
    const { text } = prose(30, 7);
    const doc = `# A\n\n${text}\n\n## B\n\n${text.slice(0, 5000)}`;
    for (const [size, overlap] of [[50, 0], [50, 24], [200, 99], [300, 40], [2000, 999]] as const) {
      const chunks = chunkText(doc, { size, overlap });
      expectWellFormed(doc, chunks, size);
    }
  });
});

describe("chunk options", () => {
  test("defaults are valid", () => {
    expect(DEFAULT_CHUNK_OPTIONS).toEqual({ size: 300, overlap: 40 });
    expect(validateChunkOptions(DEFAULT_CHUNK_OPTIONS)).toEqual([]);
  });

  test("field-level messages for the API, named as the client spelled them", () => {
    const fields = { size: "chunking.size", overlap: "chunking.overlap" };
    expect(validateChunkOptions({ size: 49, overlap: 0 }, fields)).toEqual([{ field: "chunking.size", message: "must be an integer from 50 to 2000" }]);
    expect(validateChunkOptions({ size: 2001, overlap: 10 })).toEqual([{ field: "size", message: "must be an integer from 50 to 2000" }]);
    expect(validateChunkOptions({ size: 100.5, overlap: 10 })[0].field).toBe("size");
    expect(validateChunkOptions({ size: 100, overlap: 50 }, fields)).toEqual([{ field: "chunking.overlap", message: "must be less than half of chunking.size (below 50)" }]);
    expect(validateChunkOptions({ size: 100, overlap: 49 })).toEqual([]);
    expect(validateChunkOptions({ size: 100, overlap: -1 })).toEqual([{ field: "overlap", message: "must be a non-negative integer" }]);
    expect(validateChunkOptions({ size: "300", overlap: null })).toHaveLength(2);
  });

  test("chunkText refuses invalid options", () => {
    expect(() => chunkText("text", { size: 10, overlap: 0 })).toThrow(RangeError);
    expect(() => chunkText("text", { size: 100, overlap: 60 })).toThrow("overlap must be less than half of size");
  });
});
