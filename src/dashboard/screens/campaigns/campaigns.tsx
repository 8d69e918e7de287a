// Campaigns: the list with each one's progress, and a new campaign (then its own page, for contacts).
import { useState } from "preact/hooks";
import type { Campaign } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { navigate } from "../../lib/router.ts";
import { session } from "../../lib/session.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { Link } from "../../ui/link.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, LoadState } from "../../ui/status.tsx";
import { CreateCampaign } from "./create-campaign.tsx";
import { OpenButton } from "../../ui/actions.tsx";

const allCampaigns = () => session.client.campaigns.list({ limit: 100 }).all();

export const campaignPath = (id: string) => PAGES.campaign.replace(":id", encodeURIComponent(id));

export function Campaigns() {
  const [campaigns, reload] = useLoad(allCampaigns, []);
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader title="Campaigns" description="Calls to a list of contacts from a CSV file, at the pace and hours you choose, with the results as a CSV.">
        <OpenButton open={creating} onOpen={() => setCreating(true)}>
          New campaign
        </OpenButton>
      </PageHeader>
      {creating && <CreateCampaign onCancel={() => setCreating(false)} onCreated={(campaign) => navigate(campaignPath(campaign.id))} />}
      <LoadState state={campaigns} label="Loading campaigns…" onRetry={reload} />
      {campaigns.status === "ready" && campaigns.data.length === 0 && (
        <Empty title="No campaigns yet">
          <p>Create one, upload its contacts, and start it.</p>
        </Empty>
      )}
      {campaigns.status === "ready" && campaigns.data.length > 0 && (
        <DataTable caption="Campaigns" columns={["Name", "Status", "Done", "Created"]}>
          {campaigns.data.map((campaign) => (
            <tr key={campaign.id}>
              <th scope="row">
                <Link href={campaignPath(campaign.id)}>{campaign.name}</Link>
              </th>
              <td>
                <CampaignStatus status={campaign.status} />
              </td>
              <td>
                {finished(campaign)} of {campaign.counts.total}
              </td>
              <td>{formatDate(campaign.created_at)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

/** Contacts in a final state. */
function finished(campaign: Campaign): number {
  const c = campaign.counts;
  return c.completed + c.no_answer + c.busy + c.failed + c.skipped + c.canceled;
}

export function CampaignStatus({ status }: { status: Campaign["status"] }) {
  return <span class={`badge ops-status-${status}`}>{status}</span>;
}
