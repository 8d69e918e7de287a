// A campaign's contacts a page at a time, each with its state, attempts, next attempt and last call,
// filtered by state. Read again whenever the campaign's counters move (the page polls while it runs).
import { useState } from "preact/hooks";
import type { Campaign, CampaignContact, ListCampaignContactsQuery } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { session } from "../../lib/session.ts";
import { PAGES } from "../../paths.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { SelectField } from "../../ui/field.tsx";
import { Link } from "../../ui/link.tsx";
import { Empty } from "../../ui/status.tsx";
import { PagedList, usePages } from "../../ui/paged.tsx";

const PAGE_SIZE = 50;

export const CONTACT_STATES: Record<CampaignContact["status"], string> = {
  pending: "Waiting",
  dialing: "Calling now",
  completed: "Completed",
  no_answer: "No answer",
  busy: "Busy",
  failed: "Failed",
  retry_scheduled: "Retry scheduled",
  skipped: "Skipped",
  canceled: "Canceled",
};

export function CampaignContacts({ campaign }: { campaign: Campaign }) {
  const [status, setStatus] = useState("");
  const filter = status ? (status as ListCampaignContactsQuery["status"]) : undefined;
  const pages = usePages((cursor) => session.client.campaigns.listContacts(campaign.id, { limit: PAGE_SIZE, cursor, status: filter }), [campaign.id, status, JSON.stringify(campaign.counts)]);
  return (
    <section class="panel ops-wide" aria-labelledby="contacts-title">
      <h2 id="contacts-title">Contact list</h2>
      <div class="filters">
        <SelectField label="Show" name="contact_status" value={status} onChange={setStatus} options={[{ value: "", label: "Every contact" }, ...Object.entries(CONTACT_STATES).map(([value, label]) => ({ value, label }))]} />
      </div>
      <PagedList
        pages={pages}
        what="contacts"
        empty={
          <Empty title={status ? `No contact is “${CONTACT_STATES[status as CampaignContact["status"]]}”` : "No contacts yet"}>
            <p>{status ? "Choose another state." : "Upload a CSV file of contacts."}</p>
          </Empty>
        }
      >
        {(contacts) => (
          <DataTable caption="Contacts of the campaign" columns={["Line", "Number", "State", "Attempts", "Next attempt", "Last call"]}>
            {contacts.map((contact) => (
              <tr key={contact.id}>
                <td>{contact.line}</td>
                <th scope="row">
                  <code>{contact.phone}</code>
                </th>
                <td>
                  <span class={`campaigns-state campaigns-state-${contact.status}`}>{CONTACT_STATES[contact.status]}</span>
                  {contact.last_end_reason && <span class="muted small"> {contact.last_end_reason.replace(/_/g, " ")}</span>}
                </td>
                <td>{contact.attempts}</td>
                <td>{formatDate(contact.next_attempt_at, "—")}</td>
                <td>{contact.last_call_id ? <Link href={PAGES.call.replace(":id", encodeURIComponent(contact.last_call_id))}>{contact.last_call_id}</Link> : "—"}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </PagedList>
    </section>
  );
}
