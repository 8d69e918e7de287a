import { t } from "elysia";
import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";
import { eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { campaignContacts, campaigns } from "../../db/schema/index.ts";
import { ApiError, invalid, payloadTooLarge } from "../../http/errors.ts";
import { OneOf } from "../../http/models.ts";
import { CsvFormatError, readCsv, type CsvRecord } from "../../lib/csv-reader.ts";
import { isValidTimeZone } from "../../lib/time.ts";
import { wakeDispatcher } from "./dispatcher.ts";
import type { CampaignRow } from "./models.ts";
import { contactCounts } from "./repo.ts";

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
export const MAX_UPLOAD_ROWS = 100_000;

/** Header names (normalised) that mean the phone number, the contact's time zone, or its country. */
const PHONE_ALIASES = ["phone", "phone_number", "phonenumber", "phone_no", "number", "mobile", "mobile_number", "mobile_phone", "cell", "cell_phone", "cellphone", "telephone", "tel", "msisdn", "contact_number", "to"];
const TIMEZONE_ALIASES = ["timezone", "time_zone", "tz"];
const COUNTRY_ALIASES = ["country", "country_code"];

const REJECTION_REASONS = ["missing_phone", "invalid_phone", "duplicate", "do_not_call", "invalid_timezone", "invalid_country", "too_many_cells"] as const;
type RejectionReason = (typeof REJECTION_REASONS)[number];

export const UploadSummary = t.Object({
  object: t.Literal("campaign_upload"),
  campaign_id: t.String(),
  mode: OneOf(["append", "replace"]),
  rows: t.Integer({ description: "Data rows read (blank lines aside)" }),
  accepted: t.Integer(),
  rejected: t.Integer(),
  rejected_by_reason: t.Record(t.String(), t.Integer()),
  contacts: t.Integer({ description: "The campaign's contacts after this upload" }),
  columns: t.Array(t.Object({ header: t.String(), variable: t.String() }), { description: "Each column and the variable it became (`phone` for the number)" }),
  rejections: t.Array(
    t.Object({ line: t.Integer({ description: "Line in the file (1 is the header)" }), phone: t.String({ description: "As written" }), reason: OneOf(REJECTION_REASONS), detail: t.String() }),
    { description: "Every row that was not imported, in file order" },
  ),
});

interface Column {
  header: string;
  variable: string;
}

/** "First Name" → first_name: the name a prompt uses as {{first_name}}. */
export function variableName(header: string): string {
  return header
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

function columnsOf(header: CsvRecord): { columns: Column[]; phone: number; timezone: number; country: number } {
  const taken = new Set<string>();
  const columns = header.cells.map((cell, i) => {
    const headerText = cell.trim();
    let variable = variableName(headerText) || `column_${i + 1}`;
    if (/^\d/.test(variable)) variable = `column_${variable}`;
    for (let n = 2; taken.has(variable); n++) variable = `${variableName(headerText) || "column"}_${n}`;
    taken.add(variable);
    return { header: headerText, variable };
  });
  const find = (aliases: string[]) => {
    for (const alias of aliases) {
      const index = columns.findIndex((column) => column.variable === alias);
      if (index !== -1) return index;
    }
    return -1;
  };
  const phone = find(PHONE_ALIASES);
  if (phone === -1) {
    const found = columns.map((column) => column.header || "(blank)").join(", ");
    throw invalid("file", `no phone column: name one "phone" (or ${PHONE_ALIASES.slice(1, 6).join(", ")}…); the header has: ${found}`);
  }
  // The number is stored as `phone`, whatever its header said.
  columns[phone] = { header: columns[phone].header, variable: "phone" };
  return { columns, phone, timezone: find(TIMEZONE_ALIASES), country: find(COUNTRY_ALIASES) };
}

interface ParsedContact {
  line: number;
  phone: string;
  rawPhone: string;
  variables: Record<string, string>;
  timezone: string | null;
}

interface Rejection {
  line: number;
  phone: string;
  reason: RejectionReason;
  detail: string;
}

/** Reads the whole file first (rows are small; 100,000 fit easily), so nothing is written unless all of it reads. */
async function readContacts(campaign: CampaignRow, stream: ReadableStream<Uint8Array>) {
  const records = readCsv(stream, (bytes) => {
    if (bytes > MAX_UPLOAD_BYTES) throw payloadTooLarge(MAX_UPLOAD_BYTES, `the file exceeds the ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB limit`);
  });
  let layout: ReturnType<typeof columnsOf> | null = null;
  const contacts: ParsedContact[] = [];
  const rejections: Rejection[] = [];
  const firstLineOf = new Map<string, number>();
  const doNotCall = new Set(campaign.doNotCall);
  let rows = 0;
  try {
    for await (const record of records) {
      if (!layout) {
        layout = columnsOf(record);
        continue;
      }
      // A row of empty cells (",,," from a spreadsheet's trailing rows) is a blank line.
      if (record.cells.every((cell) => cell.trim() === "")) continue;
      if (++rows > MAX_UPLOAD_ROWS) throw new ApiError("payload_too_large", `the file has more than ${MAX_UPLOAD_ROWS.toLocaleString("en-US")} rows`);
      const outcome = contactOf(record, layout, campaign.defaultCountry as CountryCode);
      if ("reason" in outcome) {
        rejections.push(outcome);
        continue;
      }
      if (doNotCall.has(outcome.phone)) {
        rejections.push({ line: record.line, phone: outcome.rawPhone, reason: "do_not_call", detail: `${outcome.phone} is on the campaign's do-not-call list` });
        continue;
      }
      const first = firstLineOf.get(outcome.phone);
      if (first !== undefined) {
        rejections.push({ line: record.line, phone: outcome.rawPhone, reason: "duplicate", detail: `${outcome.phone} is already on line ${first}` });
        continue;
      }
      firstLineOf.set(outcome.phone, record.line);
      contacts.push(outcome);
    }
  } catch (error) {
    if (error instanceof CsvFormatError) throw invalid("file", error.message);
    throw error;
  }
  if (!layout) throw invalid("file", "is empty: send a CSV with a header line and one contact per line");
  if (rows === 0) throw invalid("file", "has a header but no contacts");
  return { layout, contacts, rejections, rows };
}

function contactOf(record: CsvRecord, layout: ReturnType<typeof columnsOf>, defaultCountry: CountryCode): ParsedContact | Rejection {
  const { cells, line } = record;
  const rawPhone = (cells[layout.phone] ?? "").trim();
  const reject = (reason: RejectionReason, detail: string): Rejection => ({ line, phone: rawPhone, reason, detail });
  if (cells.length > layout.columns.length && cells.slice(layout.columns.length).some((cell) => cell.trim() !== "")) {
    return reject("too_many_cells", `has ${cells.length} cells; the header has ${layout.columns.length}`);
  }
  if (!rawPhone) return reject("missing_phone", "no phone number");
  let country = defaultCountry;
  if (layout.country !== -1 && cells[layout.country]?.trim()) {
    const code = cells[layout.country].trim().toUpperCase();
    if (!/^[A-Z]{2}$/.test(code) || !isSupportedCountry(code)) return reject("invalid_country", `country "${cells[layout.country].trim()}" is not a two-letter ISO code of a country (e.g. GB, not UK)`);
    country = code as CountryCode;
  }
  // An international 00 prefix means +. A number a spreadsheet showed as 4.15555E+09 has lost digits: it stays invalid.
  const parsed = parsePhoneNumberFromString(rawPhone.replace(/^00/, "+"), country);
  if (!parsed?.isValid()) return reject("invalid_phone", `"${rawPhone}" is not a valid phone number${rawPhone.startsWith("+") ? "" : ` in ${country}`}`);
  let timezone: string | null = null;
  if (layout.timezone !== -1 && cells[layout.timezone]?.trim()) {
    timezone = cells[layout.timezone].trim();
    if (!isValidTimeZone(timezone)) return reject("invalid_timezone", `unknown time zone "${timezone}" (use an IANA name such as America/Chicago)`);
  }
  const variables: Record<string, string> = {};
  layout.columns.forEach((column, i) => {
    if (i !== layout.phone) variables[column.variable] = cells[i] ?? "";
  });
  variables.phone = parsed.number;
  return { line, phone: parsed.number, rawPhone, variables, timezone };
}

/** Columns after this upload: the earlier ones in their order, then any this file adds. */
function mergeColumns(before: Column[], added: Column[]): Column[] {
  const known = new Set(before.map((column) => column.variable));
  return [...before, ...added.filter((column) => !known.has(column.variable))];
}

/**
 * Imports a contacts CSV: every row is either a contact or a rejection with its line and reason.
 * All of it is written in one transaction, so a failure leaves the campaign as it was.
 */
export async function uploadContacts(ctx: AppContext, campaign: CampaignRow, stream: ReadableStream<Uint8Array>, options: { mode: "append" | "replace" }) {
  if (campaign.status === "completed" || campaign.status === "canceled") {
    throw new ApiError("invalid_state", `a ${campaign.status} campaign takes no more contacts`, { errors: [{ field: "status", message: `is ${campaign.status}` }] });
  }
  if (options.mode === "replace" && campaign.status !== "draft") {
    throw new ApiError("invalid_state", `contacts can only be replaced while the campaign is a draft (it is ${campaign.status}); append instead`, { errors: [{ field: "mode", message: `campaign is ${campaign.status}` }] });
  }
  const { layout, contacts, rejections, rows } = await readContacts(campaign, stream);
  const now = ctx.clock.now();
  const accepted = ctx.sqlite.transaction(() => {
    // The campaign as it is now: the state may have moved while the file streamed in.
    const current = ctx.db.select().from(campaigns).where(eq(campaigns.id, campaign.id)).get();
    if (!current || current.status === "completed" || current.status === "canceled") throw new ApiError("invalid_state", "the campaign ended while the file was uploading");
    if (options.mode === "replace") {
      if (current.status !== "draft") throw new ApiError("invalid_state", "the campaign started while the file was uploading; append instead");
      ctx.db.delete(campaignContacts).where(eq(campaignContacts.campaignId, campaign.id)).run();
    }
    const existing = options.mode === "replace" ? new Map<string, number>() : existingPhones(ctx, campaign.id);
    const fresh: ParsedContact[] = [];
    for (const contact of contacts) {
      const line = existing.get(contact.phone);
      if (line !== undefined) rejections.push({ line: contact.line, phone: contact.rawPhone, reason: "duplicate", detail: `${contact.phone} is already a contact of this campaign (line ${line} of an earlier file)` });
      else fresh.push(contact);
    }
    // One statement run per row: building SQL for 100,000 rows through the query builder cost more than the import.
    const insert = ctx.sqlite.prepare(
      "INSERT INTO campaign_contacts (campaign_id, workspace_id, line, phone, raw_phone, variables, timezone, status, attempts, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?)",
    );
    for (const c of fresh) insert.run(campaign.id, campaign.workspaceId, c.line, c.phone, c.rawPhone, JSON.stringify(c.variables), c.timezone, now);
    const columns = options.mode === "replace" ? layout.columns : mergeColumns(current.columns, layout.columns);
    ctx.db.update(campaigns).set({ columns, updatedAt: now }).where(eq(campaigns.id, campaign.id)).run();
    if (current.status === "running" && fresh.length) wakeDispatcher(ctx, current);
    return fresh.length;
  })();
  rejections.sort((a, b) => a.line - b.line);
  const byReason: Record<string, number> = {};
  for (const rejection of rejections) byReason[rejection.reason] = (byReason[rejection.reason] ?? 0) + 1;
  return {
    object: "campaign_upload" as const,
    campaign_id: campaign.id,
    mode: options.mode,
    rows,
    accepted,
    rejected: rejections.length,
    rejected_by_reason: byReason,
    contacts: contactCounts(ctx, campaign.id).total,
    columns: layout.columns,
    rejections,
  };
}

function existingPhones(ctx: AppContext, campaignId: string): Map<string, number> {
  const rows = ctx.db.select({ phone: campaignContacts.phone, line: campaignContacts.line }).from(campaignContacts).where(eq(campaignContacts.campaignId, campaignId)).all();
  return new Map(rows.map((row) => [row.phone, row.line]));
}
