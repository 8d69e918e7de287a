// The form for a new campaign (every setting, see campaign-settings.tsx), and the editor of a draft or
// paused campaign's settings. Contacts come on the campaign's page.
import { useState } from "preact/hooks";
import type { Campaign } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
import { allAgents, allNumbers } from "../numbers/workspace-lists.ts";
import { draftOf, settingsOf, SettingsFields, type SettingsDraft } from "./campaign-settings.tsx";

const choices = async () => {
  const [agents, numbers] = await Promise.all([allAgents(), allNumbers()]);
  return { agents, numbers };
};

interface FormProps {
  /** The campaign whose settings are edited; none for a new one. */
  campaign?: Campaign;
  onDone: (campaign: Campaign) => void;
  onCancel: () => void;
}

function CampaignForm({ campaign, onDone, onCancel }: FormProps) {
  const [lists] = useLoad(choices, []);
  const [draft, setDraft] = useState<SettingsDraft>(() => draftOf(campaign));
  const action = useAction();
  const titleId = campaign ? "edit-campaign-title" : "new-campaign-title";
  const submit = async (event: Event) => {
    event.preventDefault();
    const settings = settingsOf(draft);
    await action.run(async () => onDone(campaign ? await session.client.campaigns.update(campaign.id, settings) : await session.client.campaigns.create(settings)));
  };
  return (
    <form class="panel ops-wide" onSubmit={submit} noValidate aria-labelledby={titleId}>
      <h2 id={titleId}>{campaign ? "Settings" : "New campaign"}</h2>
      <ProblemNotice problem={action.problem} />
      {lists.status === "failed" && <ProblemNotice problem={lists.problem} />}
      <SettingsFields
        draft={draft}
        set={(part) => setDraft((before) => ({ ...before, ...part }))}
        errors={action.problem?.fields ?? {}}
        agents={lists.status === "ready" ? lists.data.agents : []}
        numbers={lists.status === "ready" ? lists.data.numbers : []}
        autoFocus
      />
      <FormActions submit={campaign ? "Save settings" : "Create campaign"} busyLabel={campaign ? "Saving…" : "Creating…"} busy={action.busy} onCancel={onCancel} />
    </form>
  );
}

export function CreateCampaign({ onCreated, onCancel }: { onCreated: (campaign: Campaign) => void; onCancel: () => void }) {
  return <CampaignForm onDone={onCreated} onCancel={onCancel} />;
}

export function EditCampaign({ campaign, onSaved, onCancel }: { campaign: Campaign; onSaved: (campaign: Campaign) => void; onCancel: () => void }) {
  return <CampaignForm campaign={campaign} onDone={onSaved} onCancel={onCancel} />;
}
