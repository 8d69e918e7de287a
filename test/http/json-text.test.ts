import { describe, expect, test } from "bun:test";
import { jsonText } from "../../src/http/json-text.ts";
import { toPage, toPageText } from "../../src/http/pagination.ts";

const page = { limit: 2, after: null };
const rows = [
  { id: "a", at: 3, text: '{"n":1,"s":"é \\"q\\""}' },
  { id: "b", at: 2, text: "{}" },
  { id: "c", at: 1, text: '{"n":3}' },
];
const position = (row: (typeof rows)[number]) => ({ at: row.at, id: row.id });
const asText = (row: (typeof rows)[number]) => `{"id":${JSON.stringify(row.id)}${row.text === "{}" ? "" : `,${row.text.slice(1, -1)}`}}`;
const asObject = (row: (typeof rows)[number]) => ({ id: row.id, ...JSON.parse(row.text) });

describe("answers written as JSON text", () => {
  test("a page as text says exactly what the page object serialises to", () => {
    expect(toPageText(rows, page, position, asText)).toBe(JSON.stringify(toPage(rows, page, position, asObject)));
    expect(toPageText(rows.slice(2), page, position, asText)).toBe(JSON.stringify(toPage(rows.slice(2), page, position, asObject)));
  });

  test("a running server sends the text itself", async () => {
    const answer = jsonText({ checkResponses: false }, '{"a":1}', () => ({ a: 1 }));
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect(await (answer as Response).text()).toBe('{"a":1}');
  });

  test("a test server sends the object form (its schema is checked), and only when the text matches it", () => {
    expect(jsonText({ checkResponses: true }, '{"a":1}', () => ({ a: 1 }))).toEqual({ a: 1 });
    expect(() => jsonText({ checkResponses: true }, '{"a":2}', () => ({ a: 1 }))).toThrow("differs from its object form");
  });
});
