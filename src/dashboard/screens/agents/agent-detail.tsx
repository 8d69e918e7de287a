// One agent: its settings, webhook, versions, a text playground, a browser voice call and its tests, as tabs with
// their own URLs (/agents/:id?tab=), and a Duplicate action. Saving, restoring or publishing hands the new agent back, so every tab shows the same version.
import { useEffect, useState } from "preact/hooks";
import type { Agent, AgentWithSecret } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { Link } from "../../ui/link.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Loading, ProblemNotice } from "../../ui/status.tsx";
import { TabLinks } from "../../ui/tab-links.tsx";
import { AgentPlayground } from "./agent-playground.tsx";
import { AgentSettings } from "./agent-settings.tsx";
import { AgentTalk } from "./agent-talk.tsx";
import { AgentVersions } from "./agent-versions.tsx";
import { AgentTests } from "./tests/agent-tests.tsx";
import { AgentWebhooks, SIGNING_SECRET_NOTE } from "./agent-webhooks.tsx";
import { SecretOnce } from "../../ui/secret-once.tsx";
import { agentPath, takeCreated } from "./agents.tsx";
import { DuplicateAgent } from "./duplicate-agent.tsx";

const TABS = [
  { id: "settings", label: "Settings" },
  { id: "webhooks", label: "Webhooks" },
  { id: "versions", label: "Versions" },
  { id: "playground", label: "Playground" },
  { id: "talk", label: "Talk" },
  { id: "tests", label: "Tests" },
];

export function AgentDetail({ id, tab }: { id: string; tab: string }) {
  const [created, setCreated] = useState<AgentWithSecret | null>(() => takeCreated(id));
  const [loaded, reload] = useLoad(() => session.client.agents.get(id), [id]);
  const [agent, setAgent] = useState<Agent | null>(null);
  const [duplicating, setDuplicating] = useState(false);
  useEffect(() => setAgent(loaded.status === "ready" ? loaded.data : null), [loaded]);
  const current = TABS.some((t) => t.id === tab) ? tab : "settings";
  return (
    <>
      <p class="agents-back">
        <Link href={PAGES.agents}>← All agents</Link>
      </p>
      {loaded.status === "loading" && <Loading label="Loading the agent…" />}
      {loaded.status === "failed" && (
        <>
          <PageHeader title="Agent" />
          <ProblemNotice problem={loaded.problem} onRetry={reload} />
        </>
      )}
      {agent && (
        <>
          <PageHeader title={agent.name} description={`Version ${agent.version} · ${agent.brain.type === "flow" ? "Flow brain" : `Language model ${agent.brain.model}`} · ${agent.id}`}>
            <button type="button" class="button secondary" onClick={() => setDuplicating(true)}>
              Duplicate
            </button>
          </PageHeader>
          {duplicating && <DuplicateAgent agent={agent} onClose={() => setDuplicating(false)} />}
          {created && (
            <SecretOnce title={`Webhook signing secret of “${created.name}”`} label="Signing secret" secret={created.webhook_secret} onDone={() => setCreated(null)}>
              <p>{SIGNING_SECRET_NOTE}</p>
            </SecretOnce>
          )}
          <TabLinks label="Agent" tabs={TABS.map((t) => ({ path: agentPath(id, t.id === "settings" ? undefined : t.id), label: t.label }))} current={agentPath(id, current === "settings" ? undefined : current)} />
          {current === "settings" && <AgentSettings agent={agent} onSaved={setAgent} />}
          {current === "webhooks" && <AgentWebhooks agent={agent} onSaved={setAgent} />}
          {current === "versions" && <AgentVersions agent={agent} onChanged={setAgent} />}
          {current === "playground" && <AgentPlayground agent={agent} />}
          {current === "talk" && <AgentTalk agent={agent} />}
          {current === "tests" && <AgentTests agent={agent} />}
        </>
      )}
    </>
  );
}
