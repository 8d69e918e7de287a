// "Make a test from this call": the call's caller turns become a scripted test case of its agent, which
// opens in the agent's Tests tab to be edited.
import type { Call } from "../../../sdk/ts/src/index.ts";
import { navigate } from "../../lib/router.ts";
import type { Action } from "../../lib/use-action.ts";
import { testsApi } from "../agents/tests/api.ts";
import { testsPath } from "../agents/tests/paths.ts";

export function MakeTestButton({ call, action }: { call: Call; action: Action }) {
  const make = () => action.run(async () => navigate(testsPath(call.agent_id, { case: (await testsApi.fromCall(call.agent_id, call.id)).id })));
  return (
    <button type="button" class="button secondary" disabled={action.busy} onClick={make}>
      Make a test from this call
    </button>
  );
}
