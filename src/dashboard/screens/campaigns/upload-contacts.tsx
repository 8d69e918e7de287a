// Contacts from a CSV file (a `phone` column, others become {{variables}}), appended or replacing the
// draft's; every row refused is listed with its line and reason.
import { useRef, useState } from "preact/hooks";
import type { Campaign, UploadCampaignContactsResponse } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { SelectField } from "../../ui/field.tsx";
import { ProblemNotice, Success } from "../../ui/status.tsx";

const REASONS: Record<string, string> = {
  missing_phone: "No number",
  invalid_phone: "Not a valid number",
  duplicate: "Already in the campaign",
  do_not_call: "On the do-not-call list",
  invalid_timezone: "Unknown time zone",
  invalid_country: "Unknown country",
  too_many_cells: "More cells than columns",
};

export function UploadContacts({ campaign, onUploaded }: { campaign: Campaign; onUploaded: () => void }) {
  const file = useRef<HTMLInputElement>(null);
  const [mode, setMode] = useState<"append" | "replace">("append");
  const [report, setReport] = useState<UploadCampaignContactsResponse | null>(null);
  const [missing, setMissing] = useState(false);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const chosen = file.current?.files?.[0];
    setMissing(!chosen);
    if (!chosen) return file.current?.focus();
    const ok = await action.run(async () => setReport(await session.client.campaigns.upload(campaign.id, chosen, { mode })));
    if (ok) onUploaded();
  };
  const error = missing ? "Choose a CSV file." : action.problem?.fields.file;
  return (
    <section class="panel ops-wide" aria-labelledby="upload-title">
      <h2 id="upload-title">Contacts</h2>
      <p class="muted">A CSV file with a <code>phone</code> column; every other column becomes a variable of the call ({"{{first_name}}"} for “First Name”).</p>
      <form onSubmit={submit} noValidate>
        <ProblemNotice problem={action.problem} />
        <div class={error ? "field invalid" : "field"}>
          <label for="contacts-file">Contacts file (CSV)</label>
          <input ref={file} id="contacts-file" name="file" type="file" accept=".csv,text/csv" aria-invalid={error ? "true" : undefined} aria-describedby={error ? "contacts-file-error" : undefined} />
          {error && (
            <p class="field-error" id="contacts-file-error">
              {error}
            </p>
          )}
        </div>
        {campaign.status === "draft" && (
          <SelectField
            label="Mode"
            name="mode"
            value={mode}
            onChange={(value) => setMode(value as "append" | "replace")}
            options={[
              { value: "append", label: "Add to the contacts" },
              { value: "replace", label: "Replace the contacts" },
            ]}
          />
        )}
        <div class="actions">
          <button type="submit" class="button primary" disabled={action.busy}>
            {action.busy ? "Uploading…" : "Upload contacts"}
          </button>
        </div>
      </form>
      {report && <UploadReport report={report} />}
    </section>
  );
}

function UploadReport({ report }: { report: UploadCampaignContactsResponse }) {
  return (
    <>
      <Success>
        <p>
          {report.rows} rows read: {report.accepted} accepted, {report.rejected} rejected. The campaign now has {report.contacts} contacts.
        </p>
      </Success>
      {report.rejections.length > 0 && (
        <>
          <h3 class="ops-subtitle">Rejected rows</h3>
          <DataTable caption="Rejected rows" columns={["Line", "Number", "Reason", "Detail"]}>
            {report.rejections.map((row) => (
              <tr key={row.line}>
                <td>{row.line}</td>
                <td>
                  <code>{row.phone || "—"}</code>
                </td>
                <td>{REASONS[row.reason] ?? row.reason}</td>
                <td>{row.detail}</td>
              </tr>
            ))}
          </DataTable>
        </>
      )}
    </>
  );
}
