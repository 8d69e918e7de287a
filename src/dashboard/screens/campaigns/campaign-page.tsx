// One campaign: its contacts uploaded from a CSV (rejected rows listed) and listed with their states,
// its settings (edited while draft or paused), start, pause and cancel, live counters (polled every 2 s
// while it runs) and the results as a CSV download.
import { useState } from "preact/hooks";
import type { Campaign, GetCampaignStatsResponse } from "../../../sdk/ts/src/index.ts";
import { saveFile } from "../../lib/download.ts";
import { navigate } from "../../lib/router.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useInterval } from "../../lib/use-interval.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { Link } from "../../ui/link.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Loading, ProblemNotice } from "../../ui/status.tsx";
import { CampaignContacts, CONTACT_STATES } from "./campaign-contacts.tsx";
import { CampaignStatus } from "./campaigns.tsx";
import { EditCampaign } from "./create-campaign.tsx";
import { SettingsSummary } from "./settings-summary.tsx";
import { UploadContacts } from "./upload-contacts.tsx";
import { DangerButton } from "../../ui/actions.tsx";

const POLL_MS = 2000;

interface Loaded {
  campaign: Campaign;
  stats: GetCampaignStatsResponse;
}

const COUNTERS = [["total", "Contacts"], ...Object.entries(CONTACT_STATES)] as [keyof Campaign["counts"], string][];

export function CampaignPage({ id }: { id: string }) {
  const [loaded, reload] = useLoad<Loaded>(async () => {
    const [campaign, stats] = await Promise.all([session.client.campaigns.get(id), session.client.campaigns.stats(id)]);
    return { campaign, stats };
  }, [id]);
  const [live, setLive] = useState<Loaded | null>(null);
  const [editing, setEditing] = useState(false);
  const action = useAction();
  const confirm = useConfirm();
  const current = live ?? (loaded.status === "ready" ? loaded.data : null);
  const running = current?.campaign.status === "running";
  useInterval(
    async () => {
      try {
        const [campaign, stats] = await Promise.all([session.client.campaigns.get(id), session.client.campaigns.stats(id)]);
        setLive({ campaign, stats });
      } catch (error) {
        session.check(error); // a missed poll is retried by the next one
      }
    },
    running ? POLL_MS : null,
  );
  const refresh = () => {
    setLive(null);
    reload();
  };
  if (loaded.status === "loading") return <Loading label="Loading the campaign…" />;
  if (loaded.status === "failed")
    return (
      <>
        <PageHeader title="Campaign" />
        <ProblemNotice problem={loaded.problem} onRetry={reload} />
        <Link href={PAGES.campaigns}>All campaigns</Link>
      </>
    );
  const { campaign, stats } = current!;
  const act = (work: () => Promise<unknown>) => action.run(async () => void (await work())).then((ok) => ok && refresh());
  const cancel = async () => {
    const ok = await confirm.ask({ title: `Cancel “${campaign.name}”?`, message: "No more calls are placed; contacts still waiting are canceled. Calls in progress finish. A canceled campaign cannot be started again.", action: "Cancel campaign" });
    if (ok) await act(() => session.client.campaigns.cancel(campaign.id));
  };
  const remove = async () => {
    const ok = await confirm.ask({ title: `Delete “${campaign.name}”?`, message: "The campaign and its contacts are deleted. Its calls stay in the call log.", action: "Delete campaign" });
    if (ok && (await action.run(() => session.client.campaigns.delete(campaign.id)))) navigate(PAGES.campaigns);
  };
  const download = () => action.run(async () => saveFile(`${campaign.name.replace(/[^\w.-]+/g, "-")}-results.csv`, await session.client.campaigns.results(campaign.id), "text/csv"));
  const canStart = campaign.status === "draft" || campaign.status === "paused";
  const open = campaign.status !== "completed" && campaign.status !== "canceled";
  return (
    <>
      <p class="ops-back">
        <Link href={PAGES.campaigns}>← All campaigns</Link>
      </p>
      <PageHeader title={campaign.name}>
        {canStart && (
          <button type="button" class="button primary" disabled={action.busy || campaign.counts.total === 0} onClick={() => act(() => session.client.campaigns.start(campaign.id))}>
            {campaign.status === "paused" ? "Resume" : "Start"}
          </button>
        )}
        {running && (
          <button type="button" class="button secondary" disabled={action.busy} onClick={() => act(() => session.client.campaigns.pause(campaign.id))}>
            Pause
          </button>
        )}
        {open && (
          <DangerButton disabled={action.busy} onClick={cancel}>Cancel campaign</DangerButton>
        )}
        <button type="button" class="button secondary" disabled={action.busy || campaign.counts.total === 0} onClick={download}>
          Download results
        </button>
        {!running && (
          <DangerButton disabled={action.busy} onClick={remove}>Delete</DangerButton>
        )}
      </PageHeader>
      <ProblemNotice problem={action.problem} />
      {campaign.last_error && (
        <div class="notice error" role="alert">
          <p>Dialing stopped: {campaign.last_error}</p>
        </div>
      )}
      <section class="panel ops-wide" aria-labelledby="progress-title">
        <h2 id="progress-title">
          Progress <CampaignStatus status={campaign.status} />
        </h2>
        <label class="visually-hidden" for="campaign-progress">
          Share of contacts done
        </label>
        <progress id="campaign-progress" class="ops-progress" max={1} value={stats.progress} />
        <p class="muted" aria-live="polite">
          {Math.round(stats.progress * 100)}% done · {stats.calls} calls · {stats.answered} answered
          {stats.answer_rate !== null && ` (${Math.round(stats.answer_rate * 100)}%)`} · {stats.minutes.toFixed(1)} minutes
        </p>
        <dl class="ops-counters">
          {COUNTERS.map(([key, label]) => (
            <div key={key} data-counter={key}>
              <dt>{label}</dt>
              <dd>{campaign.counts[key]}</dd>
            </div>
          ))}
        </dl>
      </section>
      {editing && canStart ? (
        <EditCampaign campaign={campaign} onCancel={() => setEditing(false)} onSaved={() => (setEditing(false), refresh())} />
      ) : (
        <SettingsSummary campaign={campaign} onEdit={canStart ? () => setEditing(true) : undefined} />
      )}
      {canStart ? <UploadContacts campaign={campaign} onUploaded={refresh} /> : null}
      <CampaignContacts campaign={campaign} />
      {confirm.dialog}
    </>
  );
}
