import { ApiClient, type ClientOptions } from "./client.js";
import type { TokenPair } from "./auth.js";
import { ParleyResources } from "./generated/root.js";
import { runAgentTests, type RunAgentTestsOptions } from "./agent-tests.js";
import type { TestRunWithResults } from "./generated/types.js";

/**
 * The Parley API: `new Parley({ apiKey })` (or `{ email, password }`), then one property per
 * resource: `client.agents.create(...)`, `client.calls.outbound(...)`, `client.campaigns.upload(id, file)`.
 */
export class Parley extends ParleyResources {
  constructor(options: ClientOptions = {}) {
    super(new ApiClient(options));
  }

  get baseUrl(): string {
    return this.api.baseUrl;
  }

  /** The workspace calls act in (`X-Workspace-Id`); null for the credential's own. Set it to switch. */
  get workspaceId(): string | null {
    return this.api.workspaceId;
  }

  set workspaceId(id: string | null) {
    this.api.workspaceId = id;
  }

  /**
   * Runs an agent's test cases (stored, or `cases` given inline) and waits for the run to finish:
   * the run with every case's result. `onProgress` sees the run after each poll.
   */
  runAgentTests(agentId: string, options: RunAgentTestsOptions = {}, onProgress?: (run: TestRunWithResults) => void): Promise<TestRunWithResults> {
    return runAgentTests(this.testRuns, agentId, options, onProgress);
  }

  /** The session's current tokens (renewed as they expire); null with an API key. */
  get tokens(): TokenPair | null {
    return this.api.tokens;
  }
}

export default Parley;
export type { ClientOptions, RequestOptions } from "./client.js";
export type { TokenPair, TokenStore } from "./auth.js";
export * from "./errors.js";
export { type Page, PagePromise } from "./pagination.js";
export type { Uploadable } from "./uploads.js";
export type { WaitOptions } from "./extensions.js";
export type { RunAgentTestsOptions } from "./agent-tests.js";
export { OPERATIONS } from "./generated/resources.js";
export type * from "./generated/types.js";
export { isAgentEvent, isWorkspaceEvent, parseWebhookEvent, verifyWebhook, WebhookVerificationError, type VerifyOptions } from "./webhooks.js";
