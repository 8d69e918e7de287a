// Where the Tests tab's views live: the agent's page with ?tab=tests, and a case (`case`, or `new`) or a
// run (`run`, and the result shown: `result`) in the query; `against` chooses the version the list runs.
import { withQuery } from "../../../lib/router.ts";
import { PAGES } from "../../../paths.ts";

export const testsPath = (agentId: string, view: { case?: string; run?: string; result?: string; against?: string } = {}) => withQuery(PAGES.agent.replace(":id", encodeURIComponent(agentId)), { tab: "tests", ...view });
