// Contacts CSV import (endpoint 108): what a spreadsheet can throw at it (BOM, UTF-16, quoting,
// semicolons, alias headers, bad and duplicate numbers), the limits (10 MiB, 100,000 rows), and that
// a failed upload leaves the campaign exactly as it was. The reader is also fed awkward chunk splits
// directly, since an HTTP client cannot be made to split a body at a chosen byte.
import { beforeAll, describe, expect, test } from "bun:test";
import { readCsv, type CsvRecord } from "../../src/lib/csv-reader.ts";
import { MAX_UPLOAD_BYTES, MAX_UPLOAD_ROWS } from "../../src/modules/campaigns/upload.ts";
import { registerUser, serverWithUser } from "../helpers/fixtures.ts";

const s = serverWithUser("uploads");
const opts = () => ({ token: s.user.token });
let agentId = "";

beforeAll(async () => {
  const agent = await s.server.api.post("/v1/agents", { name: "Caller", first_message: "Hello {{first_name}}" }, opts());
  expect(agent.status).toBe(201);
  agentId = agent.body.id;
});

async function newCampaign(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await s.server.api.post("/v1/campaigns", { name: "Upload test", agent_id: agentId, ...extra }, opts());
  expect(res.status).toBe(201);
  return res.body.id;
}

type Body = string | Uint8Array | FormData | ReadableStream<Uint8Array>;

/** POST /upload; a string or bytes go as a text/csv body, FormData as multipart. */
async function upload(id: string, body: Body, options: { mode?: string; contentType?: string; token?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${options.token ?? s.user.token}` };
  if (!(body instanceof FormData)) headers["content-type"] = options.contentType ?? "text/csv";
  const query = options.mode ? `?mode=${options.mode}` : "";
  const res = await fetch(`${s.server.url}/v1/campaigns/${id}/upload${query}`, { method: "POST", headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, body: json, text, headers: res.headers };
}

async function contactsOf(id: string): Promise<any[]> {
  const all: any[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: any } = await s.server.api.get(`/v1/campaigns/${id}/contacts?limit=100${cursor ? `&cursor=${cursor}` : ""}`, opts());
    expect(res.status).toBe(200);
    all.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return all;
}

async function campaign(id: string) {
  const res = await s.server.api.get(`/v1/campaigns/${id}`, opts());
  expect(res.status).toBe(200);
  return res.body;
}

/** Asserts a problem+json error naming `field`, and returns its detail. */
function problem(res: { status: number; body: any; headers: Headers }, status: number, field?: string): string {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  if (field) expect(res.body.errors?.map((e: any) => e.field)).toContain(field);
  return res.body.detail;
}

/** `n` distinct valid US numbers (+1NPA555XXXX, 10,000 per area code; libphonenumber accepts them all). */
function numbers(n: number, offset = 0): string[] {
  const areas = ["212", "213", "312", "415", "503", "617", "646", "718", "202", "305", "206"];
  return Array.from({ length: n }, (_, k) => {
    const i = k + offset;
    return `+1${areas[Math.floor(i / 10_000)]}555${String(i % 10_000).padStart(4, "0")}`;
  });
}

function utf16(text: string, endian: "le" | "be"): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  out.set(endian === "le" ? [0xff, 0xfe] : [0xfe, 0xff]);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const [hi, lo] = [unit >> 8, unit & 0xff];
    out.set(endian === "le" ? [lo, hi] : [hi, lo], 2 + i * 2);
  }
  return out;
}

describe("a well-formed file", () => {
  test("every row becomes a pending contact in E.164; other columns become snake_case variables", async () => {
    const id = await newCampaign();
    const csv = ["phone,First Name,Company", "+14155550100,Ada,Acme", "(415) 555-0106,Grace,Navy", "415.555.0107,Linus,", "1-415-555-0108,Ken,Bell Labs", ""].join("\n");
    const res = await upload(id, csv);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: "campaign_upload",
      campaign_id: id,
      mode: "append",
      rows: 4,
      accepted: 4,
      rejected: 0,
      rejected_by_reason: {},
      contacts: 4,
      columns: [
        { header: "phone", variable: "phone" },
        { header: "First Name", variable: "first_name" },
        { header: "Company", variable: "company" },
      ],
      rejections: [],
    });
    const contacts = await contactsOf(id);
    expect(contacts.map((c) => [c.line, c.phone, c.raw_phone, c.status, c.attempts])).toEqual([
      [2, "+14155550100", "+14155550100", "pending", 0],
      [3, "+14155550106", "(415) 555-0106", "pending", 0],
      [4, "+14155550107", "415.555.0107", "pending", 0],
      [5, "+14155550108", "1-415-555-0108", "pending", 0],
    ]);
    // The prompt sees {{first_name}}, {{company}} and the number as dialled.
    expect(contacts[0]).toMatchObject({ object: "campaign_contact", variables: { first_name: "Ada", company: "Acme", phone: "+14155550100" }, timezone: null, last_call_id: null });
    expect(contacts[2].variables.company).toBe("");
    const after = await campaign(id);
    expect(after.columns).toEqual(res.body.columns);
    expect(after.counts).toMatchObject({ total: 4, pending: 4 });
  });

  test("a UTF-8 byte-order mark and CRLF line ends: the header is read without the mark", async () => {
    const id = await newCampaign();
    const res = await upload(id, "\uFEFFPhone,Name\r\n+14155550100,Zoë\r\n+14155550106,José\r\n", { contentType: "text/csv; charset=utf-8" });
    expect(res.status).toBe(201);
    expect(res.body.columns).toEqual([{ header: "Phone", variable: "phone" }, { header: "Name", variable: "name" }]);
    expect((await contactsOf(id)).map((c) => c.variables.name)).toEqual(["Zoë", "José"]);
  });

  test("UTF-16 with its byte-order mark (Excel's 'Unicode text'), both byte orders, tab-separated", async () => {
    for (const endian of ["le", "be"] as const) {
      const id = await newCampaign();
      const res = await upload(id, utf16("phone\tname\r\n+14155550100\tZoë 🎉\r\n+14155550106\t日本\r\n", endian));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ accepted: 2, rejected: 0, columns: [{ header: "phone" }, { header: "name" }] });
      expect((await contactsOf(id)).map((c) => c.variables.name)).toEqual(["Zoë 🎉", "日本"]);
    }
  });

  test("RFC 4180 quoting: commas, doubled quotes and line breaks inside cells; line numbers count physical lines", async () => {
    const id = await newCampaign();
    const csv = 'phone,name,note\r\n"+1 415 555 0100","Smith, Ada","first line\r\nsecond ""quoted"" line"\r\n+14155550106,Bob,"a\nb\nc"\r\n+14155550107,"",plain\r\n';
    const res = await upload(id, csv);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ rows: 3, accepted: 3 });
    const contacts = await contactsOf(id);
    expect(contacts.map((c) => c.variables)).toEqual([
      { name: "Smith, Ada", note: 'first line\r\nsecond "quoted" line', phone: "+14155550100" },
      { name: "Bob", note: "a\nb\nc", phone: "+14155550106" },
      { name: "", note: "plain", phone: "+14155550107" },
    ]);
    // Line 2 spans two physical lines, Bob's row three: the next record starts on line 7.
    expect(contacts.map((c) => c.line)).toEqual([2, 4, 7]);
  });

  test("semicolon-delimited (European Excel) with decimal commas and quoted semicolons; default country applies", async () => {
    const id = await newCampaign({ default_country: "DE" });
    const res = await upload(id, 'Phone Number;Name;Betrag\n030 901820;"Müller; Hans";3,50\n+33 1 42 68 53 00;Dupont;12,00\n');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ accepted: 2, columns: [{ header: "Phone Number", variable: "phone" }, { variable: "name" }, { variable: "betrag" }] });
    expect((await contactsOf(id)).map((c) => [c.phone, c.variables.name, c.variables.betrag])).toEqual([
      ["+4930901820", "Müller; Hans", "3,50"],
      ["+33142685300", "Dupont", "12,00"],
    ]);
  });

  test("the phone column is found under common aliases, whatever the case or spacing", async () => {
    for (const header of ["PHONE", "Phone Number", "phone_number", "Mobile", "mobile number", "Cell Phone", "Tel", "Telephone", "MSISDN", "number", "To"]) {
      const id = await newCampaign();
      const res = await upload(id, `name,${header}\nAda,+14155550100\n`);
      expect(res.status, header).toBe(201);
      expect(res.body.columns, header).toEqual([{ header: "name", variable: "name" }, { header, variable: "phone" }]);
      expect((await contactsOf(id))[0].phone, header).toBe("+14155550100");
    }
  });

  test("`phone` wins over another alias; the other column stays a variable", async () => {
    const id = await newCampaign();
    const res = await upload(id, "Mobile,Phone\n+14155550199,+14155550100\n");
    expect(res.status).toBe(201);
    const [contact] = await contactsOf(id);
    expect(contact.phone).toBe("+14155550100");
    expect(contact.variables).toEqual({ mobile: "+14155550199", phone: "+14155550100" });
  });

  test("variable names: snake_case, accents folded, leading digits and blank or repeated headers made unique", async () => {
    const id = await newCampaign();
    const res = await upload(id, "phone,First Name,  E-mail Address ,Café Notes,2nd Line,,Name,name\n+14155550100,Ada,ada@example.test,oui,flat 2,x,A,B\n");
    expect(res.status).toBe(201);
    expect(res.body.columns.map((c: any) => c.variable)).toEqual(["phone", "first_name", "e_mail_address", "cafe_notes", "column_2nd_line", "column_6", "name", "name_2"]);
    expect(res.body.columns[2].header).toBe("E-mail Address");
    expect((await contactsOf(id))[0].variables).toEqual({ first_name: "Ada", e_mail_address: "ada@example.test", cafe_notes: "oui", column_2nd_line: "flat 2", column_6: "x", name: "A", name_2: "B", phone: "+14155550100" });
  });

  test("blank lines are skipped, not counted and not rejected; a short row leaves the missing cells empty", async () => {
    const id = await newCampaign();
    const res = await upload(id, "phone,name,city\n\n+14155550100,Ada\n   \n\r\n+14155550106,Bob,Paris\n\n");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ rows: 2, accepted: 2, rejected: 0 });
    const contacts = await contactsOf(id);
    expect(contacts.map((c) => [c.line, c.variables.city])).toEqual([[3, ""], [6, "Paris"]]);
  });
});

describe("rows that are not imported are reported by line and reason", () => {
  test("invalid, missing and duplicate numbers, and rows with extra cells", async () => {
    const id = await newCampaign();
    const csv = [
      "phone,name",
      "+14155550100,first", // 2 ok
      "12345,short", // 3 invalid
      ",nobody", // 4 missing
      "+1 (415) 555-0100,again", // 5 duplicate of line 2, written differently
      "not a number,text", // 6 invalid
      "+14155550106,extra,cells", // 7 too many cells
      "+14155550107,trailing,,", // 8 empty extra cells are harmless
      "+15555550100,fictional", // 9 no such area code
      "415-555-0107,dup of 8", // 10 duplicate
      "4.15555E+09,spreadsheet", // 11 digits lost to scientific notation: never guessed
      ",", // 12 a spreadsheet's empty trailing row: blank, not a row
      " , ", // 13 the same
    ].join("\n");
    const res = await upload(id, csv);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ rows: 10, accepted: 2, rejected: 8, contacts: 2, rejected_by_reason: { invalid_phone: 4, missing_phone: 1, duplicate: 2, too_many_cells: 1 } });
    expect(res.body.rejections.map((r: any) => [r.line, r.phone, r.reason])).toEqual([
      [3, "12345", "invalid_phone"],
      [4, "", "missing_phone"],
      [5, "+1 (415) 555-0100", "duplicate"],
      [6, "not a number", "invalid_phone"],
      [7, "+14155550106", "too_many_cells"],
      [9, "+15555550100", "invalid_phone"],
      [10, "415-555-0107", "duplicate"],
      [11, "4.15555E+09", "invalid_phone"],
    ]);
    expect(res.body.rejections[2].detail).toContain("line 2");
    expect(res.body.rejections[6].detail).toContain("line 8");
    expect(res.body.rejections[4].detail).toContain("3 cells");
    expect(res.body.rejections[0].detail).toContain("12345");
    expect((await contactsOf(id)).map((c) => c.line)).toEqual([2, 8]);
  });

  test("per-row country overrides the campaign default; a bad country code is rejected", async () => {
    const id = await newCampaign({ default_country: "GB" });
    const csv = ["phone,country", "020 7946 0018,", "415 555 0100,US", "01 42 68 53 00,fr", "415 555 0106,USA", "+4930901820,US", "030 901820,", "020 7946 0019,UK"].join("\n");
    const res = await upload(id, csv);
    expect(res.status).toBe(201);
    expect(res.body.rejections.map((r: any) => [r.line, r.reason])).toEqual([
      [5, "invalid_country"],
      [7, "invalid_phone"], // a German number read as British
      [8, "invalid_country"], // two letters, but no such ISO code (GB is)
    ]);
    expect(res.body.rejections[1].detail).toContain("GB");
    expect(res.body.rejections[2].detail).toContain('"UK"');
    // An explicit +country wins over the column.
    expect((await contactsOf(id)).map((c) => [c.phone, c.variables.country])).toEqual([
      ["+442079460018", ""],
      ["+14155550100", "US"],
      ["+33142685300", "fr"],
      ["+4930901820", "US"],
    ]);
  });

  test("a `timezone` column sets the contact's zone; an unknown zone is rejected", async () => {
    const id = await newCampaign();
    const res = await upload(id, "phone,Time Zone\n+14155550100,America/Chicago\n+14155550106,Mars/Olympus_Mons\n+14155550107,\n+14155550108, Europe/Paris \n");
    expect(res.status).toBe(201);
    expect(res.body.rejections).toEqual([{ line: 3, phone: "+14155550106", reason: "invalid_timezone", detail: expect.stringContaining("Mars/Olympus_Mons") }]);
    expect((await contactsOf(id)).map((c) => [c.phone, c.timezone])).toEqual([
      ["+14155550100", "America/Chicago"],
      ["+14155550107", null],
      ["+14155550108", "Europe/Paris"],
    ]);
    const tz = await upload(await newCampaign(), "tz,phone\nAsia/Tokyo,+14155550100\n");
    expect((await contactsOf(tz.body.campaign_id))[0].timezone).toBe("Asia/Tokyo");
  });

  test("the campaign's do-not-call list rejects numbers however they are written, including ones added later", async () => {
    const id = await newCampaign({ do_not_call: ["+14155550106"] });
    const res = await upload(id, "phone\n+14155550100\n(415) 555-0106\n");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ accepted: 1, rejected: 1, rejected_by_reason: { do_not_call: 1 } });
    expect(res.body.rejections[0]).toMatchObject({ line: 3, phone: "(415) 555-0106", reason: "do_not_call", detail: expect.stringContaining("+14155550106") });

    const patched = await s.server.api.patch(`/v1/campaigns/${id}`, { do_not_call: ["+14155550106", "+14155550107"] }, opts());
    expect(patched.status).toBe(200);
    const again = await upload(id, "phone\n4155550107\n4155550108\n");
    expect(again.body.rejections.map((r: any) => [r.line, r.reason])).toEqual([[2, "do_not_call"]]);
    expect(again.body.contacts).toBe(2);

    // A number listed after its upload is not called either: its waiting contact is skipped.
    expect((await s.server.api.patch(`/v1/campaigns/${id}`, { do_not_call: ["+14155550106", "+14155550108"] }, opts())).status).toBe(200);
    const contacts = await contactsOf(id);
    expect(contacts.map((c: any) => [c.phone, c.status, c.last_end_reason])).toEqual([
      ["+14155550100", "pending", null],
      ["+14155550108", "skipped", "do_not_call"],
    ]);
  });
});

describe("uploading again", () => {
  test("appends: numbers already in the campaign are duplicates; new columns join the campaign's", async () => {
    const id = await newCampaign();
    expect((await upload(id, "phone,first_name\n+14155550100,Ada\n+14155550106,Bob\n")).status).toBe(201);
    const res = await upload(id, "Mobile,Last Name\n+14155550107,Lovelace\n415 555 0106,Again\n");
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ mode: "append", rows: 2, accepted: 1, rejected: 1, contacts: 3 });
    expect(res.body.rejections).toEqual([{ line: 3, phone: "415 555 0106", reason: "duplicate", detail: expect.stringMatching(/already a contact of this campaign.*line 3/) }]);
    // This upload's own columns in the response; the campaign keeps the union, earlier ones first.
    expect(res.body.columns.map((c: any) => c.variable)).toEqual(["phone", "last_name"]);
    expect((await campaign(id)).columns.map((c: any) => c.variable)).toEqual(["phone", "first_name", "last_name"]);
    expect((await contactsOf(id)).map((c) => c.variables)).toEqual([
      { first_name: "Ada", phone: "+14155550100" },
      { first_name: "Bob", phone: "+14155550106" },
      { last_name: "Lovelace", phone: "+14155550107" },
    ]);
  });

  test("?mode=replace swaps the contacts and columns while in draft", async () => {
    const id = await newCampaign();
    await upload(id, "phone,old\n+14155550100,x\n+14155550106,y\n");
    const res = await upload(id, "phone,new\n+14155550106,z\n+14155550107,w\n", { mode: "replace" });
    expect(res.status).toBe(201);
    // The number that was there before is not a duplicate: the old list is gone.
    expect(res.body).toMatchObject({ mode: "replace", accepted: 2, rejected: 0, contacts: 2 });
    expect((await campaign(id)).columns.map((c: any) => c.variable)).toEqual(["phone", "new"]);
    expect((await contactsOf(id)).map((c) => [c.phone, c.variables])).toEqual([
      ["+14155550106", { new: "z", phone: "+14155550106" }],
      ["+14155550107", { new: "w", phone: "+14155550107" }],
    ]);
    const bad = await upload(id, "phone\n+14155550100\n", { mode: "overwrite" });
    problem(bad, 422, "mode");
  });

  test("?mode=replace is refused once the campaign has started (409); appending still works", async () => {
    // start_at far ahead: the campaign runs but dials no one during the test.
    const id = await newCampaign({ start_at: new Date(s.server.clock.now() + 86_400_000).toISOString() });
    await upload(id, "phone\n+14155550100\n");
    expect((await s.server.api.post(`/v1/campaigns/${id}/start`, undefined, opts())).status).toBe(200);
    const replace = await upload(id, "phone\n+14155550106\n", { mode: "replace" });
    expect(problem(replace, 409, "mode")).toContain("running");
    expect((await contactsOf(id)).map((c) => c.phone)).toEqual(["+14155550100"]);
    const append = await upload(id, "phone\n+14155550106\n");
    expect(append.status).toBe(201);
    expect(append.body.contacts).toBe(2);
    await s.server.api.post(`/v1/campaigns/${id}/pause`, undefined, opts());
    problem(await upload(id, "phone\n+14155550107\n", { mode: "replace" }), 409, "mode");
    await s.server.api.post(`/v1/campaigns/${id}/cancel`, undefined, opts());
  });

  test("a canceled campaign takes no more contacts (409 naming its state)", async () => {
    const id = await newCampaign();
    await upload(id, "phone\n+14155550100\n");
    await s.server.api.post(`/v1/campaigns/${id}/cancel`, undefined, opts());
    const res = await upload(id, "phone\n+14155550106\n");
    expect(problem(res, 409, "status")).toContain("canceled");
    expect(res.body.errors).toEqual([{ field: "status", message: "is canceled" }]);
    expect((await contactsOf(id)).length).toBe(1);
  });
});

describe("files that cannot be imported: 422 with the reason, and nothing written", () => {
  let id = "";
  const before = { contacts: [] as any[], columns: [] as any[] };

  beforeAll(async () => {
    id = await newCampaign();
    const seeded = await upload(id, "phone,name\n+14155550100,Ada\n");
    expect(seeded.status).toBe(201);
    before.contacts = await contactsOf(id);
    before.columns = (await campaign(id)).columns;
  });

  /** The campaign still has exactly what it had before the failed upload. */
  async function unchanged() {
    expect(await contactsOf(id)).toEqual(before.contacts);
    expect((await campaign(id)).columns).toEqual(before.columns);
  }

  const cases: { name: string; body: Body; status?: number; detail: RegExp }[] = [
    { name: "an empty body", body: "", detail: /file/ },
    { name: "only a byte-order mark", body: "\uFEFF", detail: /empty/ },
    { name: "only blank lines", body: "\n\r\n  \n", detail: /empty/ },
    { name: "a header and no rows", body: "phone,name\r\n\r\n", detail: /no contacts/ },
    { name: "no phone column (the headers found are listed)", body: "Name,E-mail,Company\nAda,a@x.test,Acme\n", detail: /no phone column.*Name, E-mail, Company/ },
    // Latin-1 "é" (0xE9) on line 3, after a valid row that must not be imported either.
    { name: "bytes that are not UTF-8, naming the line", body: new Uint8Array([...new TextEncoder().encode("phone,name\n+14155550106,Bob\n+14155550107,Jos"), 0xe9, ...new TextEncoder().encode("\n")]), detail: /UTF-8.*line 3/ },
    { name: "UTF-16 without a byte-order mark (NUL bytes)", body: utf16("phone,name\r\n+14155550106,Bob\r\n", "le").slice(2), detail: /not UTF-8.*NUL.*line 1/ },
    { name: "a quote never closed, naming its line", body: 'phone,name\n+14155550106,Bob\n+14155550107,"Ada\n+14155550108,Eve\n', detail: /never closed.*line 3|line 3.*never closed/ },
  ];

  for (const c of cases) {
    test(c.name, async () => {
      const res = await upload(id, c.body);
      expect(problem(res, c.status ?? 422, "file")).toMatch(c.detail);
      expect(res.body.code).toBe("validation_failed");
      await unchanged();
    });
  }

  test("a failed ?mode=replace keeps the old contacts", async () => {
    problem(await upload(id, "name\nAda\n", { mode: "replace" }), 422, "file");
    problem(await upload(id, 'phone\n+14155550106\n"+14155550107\n', { mode: "replace" }), 422, "file");
    await unchanged();
  });

  test("a multipart request without a `file` part, and a body that is not CSV (415)", async () => {
    const form = new FormData();
    form.append("other", new Blob(["phone\n+14155550106\n"], { type: "text/csv" }), "contacts.csv");
    problem(await upload(id, form), 422, "file");
    const json = await upload(id, JSON.stringify({ phone: "+14155550106" }), { contentType: "application/json" });
    expect(json.status).toBe(422);
    const octets = await upload(id, "phone\n+14155550106\n", { contentType: "application/octet-stream" });
    expect(octets.status).toBe(415);
    await unchanged();
  });

  test("another workspace cannot upload to the campaign (404)", async () => {
    const other = await registerUser(s.server.api, "intruder");
    const res = await upload(id, "phone\n+14155550106\n", { token: other.token });
    expect(res.status).toBe(404);
    await unchanged();
  });
});

describe("multipart/form-data", () => {
  test("the `file` part is read exactly like a text/csv body", async () => {
    const id = await newCampaign();
    const form = new FormData();
    form.append("file", new Blob(['\uFEFFphone;First Name\r\n"+1 415 555 0100";"Ada; Countess"\r\n12;bad\r\n'], { type: "text/csv" }), "contacts.csv");
    const res = await upload(id, form);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ accepted: 1, rejected: 1, rejections: [{ line: 3, reason: "invalid_phone" }], columns: [{ variable: "phone" }, { variable: "first_name" }] });
    expect((await contactsOf(id))[0].variables).toEqual({ first_name: "Ada; Countess", phone: "+14155550100" });
  });
});

describe("limits: 10 MiB and 100,000 rows (413 beyond, nothing written)", () => {
  test(
    `${MAX_UPLOAD_ROWS.toLocaleString("en-US")} rows across area codes are all imported`,
    async () => {
      const id = await newCampaign();
      const body = `phone,row\n${numbers(MAX_UPLOAD_ROWS).map((n, i) => `${n},${i}`).join("\n")}\n`;
      expect(body.length).toBeLessThan(MAX_UPLOAD_BYTES);
      const res = await upload(id, body);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ rows: MAX_UPLOAD_ROWS, accepted: MAX_UPLOAD_ROWS, rejected: 0, contacts: MAX_UPLOAD_ROWS });
      const stats = await campaign(id);
      expect(stats.counts).toMatchObject({ total: MAX_UPLOAD_ROWS, pending: MAX_UPLOAD_ROWS });
      // The last row is where it should be, with its variables (read from the database: 1,000 pages otherwise).
      const last = s.server.ctx.sqlite.prepare("SELECT line, phone, variables FROM campaign_contacts WHERE campaign_id = ? ORDER BY id DESC LIMIT 1").get(id) as any;
      expect(last).toMatchObject({ line: MAX_UPLOAD_ROWS + 1, phone: numbers(1, MAX_UPLOAD_ROWS - 1)[0] });
      expect(JSON.parse(last.variables).row).toBe(String(MAX_UPLOAD_ROWS - 1));
    },
    60_000,
  );

  test("one row more is 413, and the rows before it are not imported", async () => {
    const id = await newCampaign();
    await upload(id, "phone\n+14155550100\n");
    // Valid numbers first, so a partial import would show; then rows that are quick to reject.
    const rows = [...numbers(1000, 20_000), ...Array.from({ length: MAX_UPLOAD_ROWS + 1 - 1000 }, () => "")].map((phone) => `${phone},x`);
    const res = await upload(id, `phone,name\n${rows.join("\n")}\n`);
    expect(problem(res, 413)).toContain("100,000 rows");
    expect(res.body.code).toBe("payload_too_large");
    expect((await campaign(id)).counts.total).toBe(1);
  }, 30_000);

  test("a file of exactly 10 MiB is read; one byte more is 413 (declared length or chunked stream), nothing written", async () => {
    const id = await newCampaign();
    // 1,000 rows with a large note: the size limit, not the row limit, is what is tested.
    const header = "phone,note\n";
    const phones = numbers(1000, 30_000);
    const fixed = header.length + phones.reduce((sum, p) => sum + p.length + 2, 0);
    const pad = Math.floor((MAX_UPLOAD_BYTES - fixed) / phones.length);
    const rows = phones.map((p) => `${p},${"n".repeat(pad)}\n`);
    let exact = header + rows.join("");
    exact += "\n".repeat(MAX_UPLOAD_BYTES - exact.length); // blank lines make up the difference
    expect(exact.length).toBe(MAX_UPLOAD_BYTES);

    const over = exact + "\n";
    const tooBig = await upload(id, over);
    expect(problem(tooBig, 413)).toContain("10 MiB");
    expect((await campaign(id)).counts.total).toBe(0);

    // Without a Content-Length the limit is enforced as the bytes arrive.
    const bytes = new TextEncoder().encode(over + "x".repeat(2 * 1024 * 1024));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 256 * 1024) controller.enqueue(bytes.subarray(i, i + 256 * 1024));
        controller.close();
      },
    });
    problem(await upload(id, stream), 413);
    expect((await campaign(id)).counts.total).toBe(0);

    // Well beyond the limit the declared length alone is refused.
    problem(await upload(id, over + "x".repeat(MAX_UPLOAD_BYTES)), 413);
    // A multipart `file` part is held to the same limit.
    const form = new FormData();
    form.append("file", new Blob([over], { type: "text/csv" }), "big.csv");
    problem(await upload(id, form), 413);
    expect((await campaign(id)).counts.total).toBe(0);

    const ok = await upload(id, exact);
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ rows: 1000, accepted: 1000 });
  }, 60_000);
});

describe("the streamed reader across chunk boundaries", () => {
  /** Feeds `bytes` to readCsv split at every position in `cuts`. */
  async function read(bytes: Uint8Array, cuts: number[]): Promise<CsvRecord[]> {
    const points = [0, ...cuts, bytes.length];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i + 1 < points.length; i++) controller.enqueue(bytes.slice(points[i], points[i + 1]));
        controller.close();
      },
    });
    const out: CsvRecord[] = [];
    for await (const record of readCsv(stream)) out.push(record);
    return out;
  }

  const encode = (text: string) => new TextEncoder().encode(text);

  test("splitting a file one byte at a time changes nothing (BOM, multi-byte characters, CRLF, doubled quotes)", async () => {
    const bytes = encode('\uFEFFphone;name;note\r\n+14155550100;"Zoë ""Z""";"a\r\nb"\r\n+14155550106;日本;\r\n\r\n"+14155550107";x;"y;z"');
    const whole = await read(bytes, []);
    expect(whole).toEqual([
      { line: 1, cells: ["phone", "name", "note"] },
      { line: 2, cells: ["+14155550100", 'Zoë "Z"', "a\r\nb"] },
      { line: 4, cells: ["+14155550106", "日本", ""] },
      { line: 6, cells: ["+14155550107", "x", "y;z"] },
    ]);
    const everyByte = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
    expect(await read(bytes, everyByte)).toEqual(whole);
  });

  test("every single split point gives the same records", async () => {
    const bytes = encode('phone,note\r\n+14155550100,"x\r\ny"\r\n+14155550106,"q""q"\r\n+14155550107,é\r\n');
    const whole = await read(bytes, []);
    expect(whole.map((r) => r.line)).toEqual([1, 2, 4, 5]);
    for (let cut = 1; cut < bytes.length; cut++) expect(await read(bytes, [cut])).toEqual(whole);
  });

  test("a byte that is not UTF-8 is reported on its line, wherever the chunks split", async () => {
    // "Zoë" is valid UTF-8 (C3 AB) on line 2; a lone Latin-1 "é" (E9) breaks line 3.
    const bytes = new Uint8Array([...encode("phone,name\n+14155550100,Zo"), 0xc3, 0xab, ...encode("\n+14155550106,Jos"), 0xe9, ...encode("\n+14155550107,x\n")]);
    const split = bytes.indexOf(0xab); // between the two bytes of "ë"
    const bad = bytes.indexOf(0xe9);
    for (const cuts of [[], [split], [bad], [bad + 1], [split, bad + 1], [5]]) {
      const error = await read(bytes, cuts).then(
        () => null,
        (e) => e,
      );
      expect(error?.message, `cuts at ${cuts}`).toContain("(line 3)");
    }
  });
});
