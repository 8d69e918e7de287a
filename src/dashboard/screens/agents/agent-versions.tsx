// The agent's configuration history: every save is a version (a draft, saved to be tested first, is
// marked, and publishing makes it live); restoring one (after confirming) makes a new version with that
// configuration, so nothing is lost.
import { useState } from "preact/hooks";
import type { Agent, AgentVersion } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { Empty, LoadState, ProblemNotice } from "../../ui/status.tsx";
import { PublishVersion } from "./publish-version.tsx";

export function AgentVersions({ agent, onChanged }: { agent: Agent; onChanged: (agent: Agent) => void }) {
  const [versions, reload] = useLoad(() => session.client.agents.listVersions(agent.id, { limit: 50 }).then((page) => page.data), [agent.id, agent.version]);
  const restoring = useAction();
  const confirm = useConfirm();
  const [publishing, setPublishing] = useState<AgentVersion | null>(null);
  const restore = async (version: AgentVersion) => {
    const ok = await confirm.ask({
      title: `Restore version ${version.version}?`,
      message: `The agent goes back to the whole configuration of version ${version.version}, its webhook URL and events included, saved as a new version ${agent.version + 1}. Calls that start from now on use it.`,
      action: "Restore version",
    });
    if (ok) await restoring.run(async () => onChanged(await session.client.agents.restoreVersion(agent.id, version.version)));
  };
  return (
    <section aria-labelledby="agent-versions-title">
      <h2 id="agent-versions-title">Versions</h2>
      <ProblemNotice problem={restoring.problem} />
      <LoadState state={versions} label="Loading versions…" onRetry={reload} />
      {versions.status === "ready" && versions.data.length === 0 && <Empty title="No versions yet" />}
      {versions.status === "ready" && versions.data.length > 0 && (
        <DataTable caption="Versions" columns={["Version", "Saved", "Note", "Configuration", null]}>
          {versions.data.map((version) => {
            // The live version is no draft, even in a list read before it was published (it reloads after the agent).
            const draft = version.draft && version.version !== agent.version;
            return (
              <tr key={version.version}>
                <th scope="row">
                  {version.version}
                  {version.version === agent.version && <span class="badge current">current</span>}
                  {draft && <span class="badge">draft</span>}
                </th>
                <td>{formatDate(version.created_at)}</td>
                <td>{version.note ?? "—"}</td>
                <td>
                  <details class="agents-config">
                    <summary>Show</summary>
                    <pre>{JSON.stringify(version.config, null, 2)}</pre>
                  </details>
                </td>
                <td class="row-actions">
                  {draft && (
                    <button type="button" class="button secondary" aria-label={`Publish version ${version.version}`} onClick={() => setPublishing(version)}>
                      Publish
                    </button>
                  )}
                  {!draft && version.version !== agent.version && (
                    <button type="button" class="button secondary" disabled={restoring.busy} aria-label={`Restore version ${version.version}`} onClick={() => restore(version)}>
                      Restore
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
      {confirm.dialog}
      {publishing && <PublishVersion agent={agent} version={publishing} onClose={() => setPublishing(null)} onPublished={(next) => (setPublishing(null), onChanged(next))} />}
    </section>
  );
}
