// Making a draft version live, after confirming; by default only if its latest test run passed (the API's
// `require_passing_tests`): a refusal says which run failed, or that none ran, with the way to the Tests tab.
import { useState } from "preact/hooks";
import type { Agent, AgentVersion } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Dialog } from "../../ui/dialog.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { Link } from "../../ui/link.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
import { Check } from "./form-kit.tsx";
import { testsPath } from "./tests/paths.ts";

export function PublishVersion({ agent, version, onClose, onPublished }: { agent: Agent; version: AgentVersion; onClose: () => void; onPublished: (agent: Agent) => void }) {
  const [requirePassing, setRequirePassing] = useState(true);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => onPublished(await session.client.agents.publishVersion(agent.id, version.version, { require_passing_tests: requirePassing })));
  };
  return (
    <Dialog title={`Publish version ${version.version}?`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <p>Version {version.version} becomes the live configuration, instead of version {agent.version}: calls that start from now on use it.</p>
        <ProblemNotice problem={action.problem}>
          {action.problem?.code === "tests_failing" && <Link href={testsPath(agent.id, { against: String(version.version) })}>Run the tests against version {version.version}</Link>}
        </ProblemNotice>
        <Check name="require_passing_tests" checked={requirePassing} onChange={setRequirePassing}>
          Only if its latest test run passed
        </Check>
        <FormActions submit="Publish" busy={action.busy} busyLabel="Publishing…" onCancel={onClose} />
      </form>
    </Dialog>
  );
}
