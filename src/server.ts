// The composition root: builds the context, installs the job runner, wires each feature to the
// services of the others, registers every job type, and starts (or stops) the server.
import { createApp, type AppServices } from "./app.ts";
import { publicBaseUrl } from "./config/config.ts";
import { listenError } from "./config/listen-check.ts";
import { closeContext, createContext, type AppContext, type ContextOptions } from "./core/context.ts";
import { withHttp, type HttpContext } from "./http/context.ts";
import { JobRunner } from "./jobs/runner.ts";
import { INDEX_JOB, indexSource } from "./knowledge/indexing.ts";
import { searchKnowledge } from "./knowledge/search.ts";
import { installAgentsPorts } from "./modules/agents/ports.ts";
import { agentsReferencing, findAgent, findVersion } from "./modules/agents/repo.ts";
import { installAgentTestsPorts, type CaseRequest } from "./modules/agent-tests/ports.ts";
import type { CaseVerdict } from "./modules/agent-tests/definition.ts";
import type { RunnerDeps } from "./modules/agent-tests/runner/deps.ts";
import { runTestCase } from "./modules/agent-tests/runner/run-case.ts";
import { toolIdsOf } from "./modules/agent-tests/validate.ts";
import { readTestCall, startTestCall } from "./modules/calls/test-calls.ts";
import { runTestRun } from "./modules/agent-tests/orchestrator.ts";
import { latestRunOf, RUN_ATTEMPTS as TEST_RUN_ATTEMPTS, RUN_JOB as TEST_RUN_JOB } from "./modules/agent-tests/runs.ts";
import { configOf } from "./modules/agents/models.ts";
import { configAtVersion, getAgent, referencedAgent } from "./modules/agents/service.ts";
import { getApiKey } from "./modules/api-keys/service.ts";
import { installAuthPorts } from "./modules/auth/ports.ts";
import { findUser } from "./modules/auth/repo.ts";
import { installCallsPorts } from "./modules/calls/ports.ts";
import { installCampaignsPorts } from "./modules/campaigns/ports.ts";
import { existingKnowledgeBaseIds } from "./modules/knowledge-base/repo.ts";
import { installMembersPorts } from "./modules/members/ports.ts";
import { installPhoneNumbersPorts } from "./modules/phone-numbers/ports.ts";
import { installSchedulesPorts } from "./modules/schedules/ports.ts";
import { createAgentWebhook, deleteAgentWebhook, rotateAgentWebhookSecret, updateAgentWebhook } from "./modules/webhooks/agent-webhooks.ts";
import { awaitFirstAttempt } from "./modules/webhooks/service.ts";
import { createWorkspaceWithOwner, getWorkspace } from "./modules/workspaces/service.ts";
import { chat, pruneChatSessions } from "./modules/agents/chat.ts";
import { webCalls } from "./modules/calls/web.ts";
import { issueToken, pruneTokens } from "./modules/realtime/tokens.ts";
import { finalizeCall } from "./modules/calls/finalize.ts";
import { inboundCalls } from "./modules/calls/inbound.ts";
import { endCallsOfPreviousRun, FINALIZE_JOB, findCall, onCallEnd, onCallStart, onLostCall } from "./modules/calls/lifecycle.ts";
import { agentConfigForCall } from "./modules/calls/connect.ts";
import { fundsCutoffs, startMetering } from "./modules/wallet/meter-loop.ts";
import { AUTO_RECHARGE_JOB, runAutoRecharge } from "./modules/wallet/payments/auto-recharge.ts";
import { paymentSweeps } from "./modules/wallet/payments/sweeps.ts";
import { auditRetentionSweeps } from "./modules/audit-log/retention.ts";
import { chargedUntil, enginesOf, ensureFunds, settleCall } from "./modules/wallet/metering.ts";
import { chargeNumberFees, ensureNumberFunds, startNumberFees, stopNumberFees } from "./modules/wallet/number-fees.ts";
import { BROWSER_CARRIER, checkWebCallAllowed, createOutboundCall, getCall, PLACE_ATTEMPTS, PLACE_JOB } from "./modules/calls/service.ts";
import { stopWorkspaceCalls } from "./modules/calls/controls.ts";
import { callOutcomeMetrics } from "./modules/calls/metrics.ts";
import { walletMetrics } from "./modules/wallet/metrics.ts";
import { refusalMetrics } from "./core/refusal-count.ts";
import { jobQueueMetrics } from "./jobs/metrics.ts";
import { isLoopback, startMetricsListener } from "./metrics/listener.ts";
import { processMetrics } from "./metrics/process.ts";
import { callRuntimeMetrics } from "./voice/runtime/metrics.ts";
import { webhookMetrics } from "./webhooks/metrics.ts";
import { DISPATCH_JOB, dispatchCampaign } from "./modules/campaigns/dispatcher.ts";
import { recordCampaignOutcome } from "./modules/campaigns/outcomes.ts";
import { campaignsUsingAgent } from "./modules/campaigns/service.ts";
import { findNumberById, findOwnedNumber, numberOfAgent, numbersOnCarrier, numbersUsingAgent, onNumberChanges } from "./modules/phone-numbers/service.ts";
import { runSchedule } from "./modules/schedules/runner.ts";
import { RUN_JOB, schedulesUsingAgent } from "./modules/schedules/service.ts";
import { pruneWidgetSessions, widgetsUsingAgent } from "./modules/widgets/service.ts";
import { demoUsingAgent } from "./modules/front-door/demo.ts";
import { findOperatorWorkspace, firstWorkspaceOf, insertMember, membershipOf } from "./modules/workspaces/repo.ts";
import { hostBrandLookup } from "./modules/white-label/directory.ts";
import { invokeTool } from "./modules/tools/invoke.ts";
import { mockedToolAnswer } from "./modules/agent-tests/runner/tool-mocks.ts";
import { toolConfigOf } from "./modules/tools/models.ts";
import { findTool, findTools } from "./modules/tools/repo.ts";
import { connectionOf } from "./providers/connection.ts";
import { findProvider } from "./providers/store.ts";
import { startSystemSweeps } from "./scheduler/system-sweeps.ts";
import { lostBy, markStopped, registerNode, startHeartbeat } from "./cluster/nodes.ts";
import { LOSS_SWEEP_PATTERN, takeOverDeadNode, takeOverLostNodes } from "./cluster/loss.ts";
import { previousNodeOfDataDir } from "./cluster/data-dir-node.ts";
import { clusterMetrics } from "./cluster/metrics.ts";
import { endCallsOfLostNode } from "./modules/calls/node-loss.ts";
import { releaseLeasesOf } from "./jobs/leases.ts";
import { liveCalls } from "./voice/runtime/registry.ts";
import { refreshSuspendedWorkspaces } from "./http/suspensions.ts";
import { CarrierRegistry } from "./telephony/registry.ts";
import { telnyxKind } from "./telephony/telnyx/kind.ts";
import { twilioKind } from "./telephony/twilio/kind.ts";
import { sipKind } from "./telephony/sip/kind.ts";
import { simulatedKind } from "./telephony/simulated/kind.ts";
import type { BrainServices } from "./voice/brains/services.ts";
import { pocketsphinxAvailability, setBuiltinRecognitionSpeed, usePocketsphinxCache, type BuiltinRecognitionSpeed } from "./voice/speech/builtin/index.ts";
import { placeCall } from "./modules/calls/connect.ts";
import { recordingsStored, storeLeftRecordings } from "./modules/calls/recording-store.ts";
import { closeFileStore } from "./files/file-store.ts";
import { prepareFilesDir } from "./files/directory-store.ts";
import { endLiveCallsAtShutdown, watchLiveCalls } from "./voice/runtime/watchdog.ts";
import { deliverWebhook } from "./webhooks/delivery.ts";
import { DELIVER_JOB } from "./webhooks/outbox.ts";
import { DELIVERY_JOB_RUN_LIMIT } from "./webhooks/retry-policy.ts";

/** How soon a node binds a SIP trunk another node of the cluster added or changed, and follows a suspension or resumption made there. */
const CLUSTER_SYNC_MS = 3_000;

/** Running jobs get this long to finish at shutdown; the rest are handed back to the queue. */
const JOB_SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * Bun's own cap, off: past it Bun answers an empty 413 of its own before Parley sees the request. Every
 * body is read by the body parser to its route's limit (1 MiB JSON, uploads as declared), which answers
 * problem+json and closes the connection; a body nothing reads closes the connection too (app.ts, errors).
 */
const MAX_REQUEST_BODY_BYTES = Number.MAX_SAFE_INTEGER;

/** One Parley: the context every feature shares, with the job runner this process drives. */
export interface Parley extends HttpContext {
  jobs: JobRunner;
  /** Every carrier kind of this build, and the live carrier of each connection in use. */
  carriers: CarrierRegistry;
  /** What the route families reach across features. */
  services: AppServices;
}

/** Opens the data dir and database (migrated), and wires every feature; nothing runs until startServer. */
export function createParley(options: ContextOptions): Parley {
  const ctx = withHttp(createContext(options));
  installPorts(ctx);
  setBuiltinRecognitionSpeed(ctx.config.builtinRecognition as BuiltinRecognitionSpeed);
  usePocketsphinxCache(ctx.dataDir.cache); // where the executable's own recogniser is extracted, if it carries one
  const brains = brainServices(ctx);
  const carriers = new CarrierRegistry(ctx, [simulatedKind(), sipKind(), twilioKind(), telnyxKind()]);
  const inbound = inboundCalls(ctx, brains, carriers);
  carriers.attach({
    inbound,
    log: (message) => ctx.logger.info(message),
    publicUrl: () => ctx.publicUrl,
    nodeUrl: () => ctx.config.nodeUrl || ctx.publicUrl,
    nodeName: ctx.config.nodeName,
    outbound: { allowPrivate: ctx.config.allowPrivateUrls },
  });
  const services: AppServices = {
    brains,
    carriers,
    inbound,
    carrierUsage: (workspaceId, connectionId) => numbersOnCarrier(ctx, workspaceId, connectionId),
    agentsUsing: (workspaceId, id) => agentsReferencing(ctx.db, workspaceId, id),
    agentConfig: (workspaceId, agentId) => configOf(referencedAgent(ctx, workspaceId, agentId)),
    realtimeToken(workspaceId, request) {
      checkWebCallAllowed(ctx, workspaceId, request.agentId);
      return issueToken(ctx, workspaceId, request);
    },
    webCalls: webCalls(ctx, brains),
    agentChat: (workspaceId, agentId, input) => chat(ctx, brains, workspaceId, agentId, input),
    agentUsage: (workspaceId, agentId) => [numbersUsingAgent, campaignsUsingAgent, schedulesUsingAgent, widgetsUsingAgent, demoUsingAgent].flatMap((check) => check(ctx, workspaceId, agentId)),
    operatorWorkspaceId: () => findOperatorWorkspace(ctx.db)?.id ?? null,
    // The operator's own call (the public demo): it may reach any carrier the operator connected.
    placeCall: (workspaceId, input) => createOutboundCall(ctx, carriers, workspaceId, input, { reach: "any" }),
    stopWorkspaceCalls: (workspaceId, reason) => stopWorkspaceCalls(ctx, workspaceId, reason),
  };
  // A request's Host picks its brand: a reseller's verified domain, else the instance's own.
  ctx.hostBrands.lookup = hostBrandLookup(ctx, services.operatorWorkspaceId);
  // The node holds its jobs' leases: a survivor that finds it lost hands them on at once.
  const parley = Object.assign(ctx, { jobs: new JobRunner(ctx, { leaseMs: ctx.config.jobLeaseSeconds * 1000, holder: ctx.nodeId }), carriers, services });
  registerJobHandlers(parley);
  declareMetrics(parley);
  return parley;
}

/** Every feature's metrics, declared up front so a scrape shows each at 0 before anything happened. */
function declareMetrics(ctx: Parley): void {
  refusalMetrics(ctx.metrics);
  callRuntimeMetrics(ctx, [...ctx.carriers.kinds().map((kind) => kind.kind), BROWSER_CARRIER]);
  callOutcomeMetrics(ctx);
  jobQueueMetrics(ctx, () => ctx.jobs.typeNames());
  webhookMetrics(ctx);
  walletMetrics(ctx);
  clusterMetrics(ctx);
}

/**
 * What each feature reaches in the others (its ports), from the features that keep it. Installed on the
 * context like the hooks, so the features' functions keep their signatures for every caller (CLI, scripts).
 */
function installPorts(ctx: AppContext): void {
  const agents = {
    referencedAgent: (workspaceId: string, id: string) => referencedAgent(ctx, workspaceId, id),
    findAgent: (workspaceId: string, id: string) => findAgent(ctx.db, workspaceId, id),
  };
  const numbers = {
    numberById: (workspaceId: string, id: string) => findNumberById(ctx, workspaceId, id),
    ownedNumber: (workspaceId: string, number: string) => findOwnedNumber(ctx, workspaceId, number),
  };
  const workspaces = {
    getWorkspace: (workspaceId: string) => getWorkspace(ctx, workspaceId),
    isMember: (userId: string, workspaceId: string) => Boolean(membershipOf(ctx.db, userId, workspaceId)),
  };
  installAgentsPorts(ctx, {
    defaultLanguage: (workspaceId) => getWorkspace(ctx, workspaceId).defaultLanguage,
    existingToolIds: (workspaceId, ids) => new Set(findTools(ctx.db, workspaceId, ids).map((tool) => tool.id)),
    existingKnowledgeBaseIds: (workspaceId, ids) => existingKnowledgeBaseIds(ctx.db, workspaceId, ids),
    invokeTool(workspaceId, toolId, args, context) {
      const tool = findTool(ctx.db, workspaceId, toolId);
      return tool ? invokeTool(ctx, tool, args, context) : null;
    },
    webhook: {
      create: (workspaceId, agentId, url, events) => createAgentWebhook(ctx, workspaceId, agentId, url, events),
      update: (workspaceId, agentId, url, events) => updateAgentWebhook(ctx, workspaceId, agentId, url, events),
      rotateSecret: (workspaceId, agentId) => rotateAgentWebhookSecret(ctx, workspaceId, agentId),
      delete: (workspaceId, agentId) => deleteAgentWebhook(ctx, workspaceId, agentId),
    },
    awaitFirstAttempt: (workspaceId, eventId, deliveryId) => awaitFirstAttempt(ctx, workspaceId, eventId, deliveryId),
    latestTestRun: (workspaceId, agentId, version) => latestRunOf(ctx, workspaceId, agentId, version),
  });
  installAuthPorts(ctx, {
    ...workspaces,
    createWorkspaceWithOwner: (userId, input, options) => createWorkspaceWithOwner(ctx, userId, input, options),
    firstWorkspaceOf: (userId) => firstWorkspaceOf(ctx.db, userId),
    getApiKey: (workspaceId, id) => getApiKey(ctx, workspaceId, id),
  });
  installMembersPorts(ctx, { ...workspaces, findUser: (userId) => findUser(ctx.db, userId), insertMember: (member) => insertMember(ctx.db, member) });
  installCallsPorts(ctx, {
    ...agents,
    ...numbers,
    getAgent: (workspaceId, id) => getAgent(ctx, workspaceId, id),
    agentConfigAt: (workspaceId, agentId, version) => configAtVersion(ctx, workspaceId, agentId, version),
    numberOfAgent: (workspaceId, agentId) => numberOfAgent(ctx, workspaceId, agentId),
  });
  installCampaignsPorts(ctx, { ...agents, ...numbers });
  installAgentTestsPorts(ctx, {
    getAgent: (workspaceId, id) => getAgent(ctx, workspaceId, id),
    versionExists: (workspaceId, agentId, version) => Boolean(findVersion(ctx.db, workspaceId, agentId, version)),
    agentConfigAt: (workspaceId, agentId, version) => configAtVersion(ctx, workspaceId, agentId, version),
    tools: (workspaceId, ids) => findTools(ctx.db, workspaceId, ids).map((row) => ({ id: row.id, name: toolConfigOf(row).name })),
    providerKind: (workspaceId, id) => findProvider(ctx.db, workspaceId, id)?.kind ?? null,
    getCall: (workspaceId, id) => getCall(ctx, workspaceId, id),
    runCase: (request, signal) => runCaseWithRunner(ctx, request, signal),
  });
  installPhoneNumbersPorts(ctx, agents);
  installSchedulesPorts(ctx, { ...agents, ...numbers });
}

/** A brain's tools, knowledge and language model, from the features that keep them. */
function brainServices(ctx: AppContext): BrainServices {
  return {
    tools: (workspaceId, ids) =>
      findTools(ctx.db, workspaceId, ids).map((row) => {
        const config = toolConfigOf(row);
        return { id: row.id, name: config.name, description: config.description, parameters: config.parameters };
      }),
    async invokeTool(workspaceId, toolId, args, context) {
      // A test case's answer for this tool stands in for its URL (the timeline still records the call).
      const mocked = mockedToolAnswer(context.callId, toolId);
      if (mocked) return mocked;
      const tool = findTool(ctx.db, workspaceId, toolId);
      if (!tool) return { ok: false, result: { error: "the tool no longer exists" } };
      const invocation = await invokeTool(ctx, tool, args, context);
      return { ok: invocation.error === null, result: invocation.result };
    },
    searchKnowledge: (workspaceId, knowledgeBaseIds, query, options) => searchKnowledge(ctx, workspaceId, knowledgeBaseIds, query, options),
    languageModel(workspaceId, providerId) {
      const row = findProvider(ctx.db, workspaceId, providerId);
      return row ? connectionOf(ctx, row) : null;
    },
    now: () => ctx.clock.now(),
  };
}

export function closeParley(parley: Parley): void {
  parley.carriers.close();
  closeContext(parley);
}

/** Every job type the server runs. */
function registerJobHandlers(ctx: Parley): void {
  // A campaign contact moves on in the same transaction as its call's end.
  onCallEnd(ctx, recordCampaignOutcome);
  // Money: a call starts only if its wallet can pay its first minute, and its final charge commits with its end.
  onCallStart(ctx, (ctx, start) => ensureFunds(ctx, start.workspaceId, start.carrierKind, start.direction, start.agent));
  onCallEnd(ctx, (ctx, call) => {
    if (call.testRunId) return; // an agent test's call is free (README "Testing your agents")
    try {
      const end = (call.answeredAt ?? 0) + (call.durationMs ?? 0);
      settleCall(ctx, call, Math.min(end, fundsCutoffs(ctx).get(call.id) ?? end), enginesOfCall(ctx, call));
    } catch (error) {
      // Never roll the call's end back over its charge: the charge is logged to be corrected by hand.
      ctx.logger.error("settling an ended call failed", { call_id: call.id, error: (error as Error).message });
    }
  });
  // A number's first month is paid (or the purchase refused) with its row; releasing it ends its fees.
  onNumberChanges(ctx, {
    check: (ctx, add) => ensureNumberFunds(ctx, add.workspaceId, add.carrierKind),
    added: (ctx, number, carrierKind) => startNumberFees(ctx, number, carrierKind),
    released: (ctx, number) => stopNumberFees(ctx, number.id),
  });
  // A call a crashed run left live talked as far as it was charged: the outage is not charged.
  onLostCall(ctx, chargedUntil);
  // Deliveries wait on the network, not the CPU: many may be in flight on a small box.
  ctx.jobs.register<{ delivery_id: string }>(DELIVER_JOB, (job) => deliverWebhook(ctx, job), {
    concurrency: 32,
    maxAttempts: DELIVERY_JOB_RUN_LIMIT,
    retryAt: (_job, now) => now, // the handler names the exact time (its own schedule) with JobRetryLater
  });
  // Embedding is CPU work on this box (the built-in embedder): two at a time leave room for requests.
  ctx.jobs.register<{ source_id: string }>(INDEX_JOB, (job) => indexSource(ctx, job), { concurrency: 2, maxAttempts: 5 });
  // Dialing only starts a call (the call then lives in memory), so many can be placed at once.
  ctx.jobs.register<{ call_id: string }>(PLACE_JOB, (job) => placeCall(ctx, ctx.services.brains, ctx.carriers, job), { concurrency: 16, maxAttempts: PLACE_ATTEMPTS });
  // Extraction may wait on a model for seconds; a failed attempt retries with backoff.
  ctx.jobs.register<{ call_id: string; slots: Record<string, unknown> }>(FINALIZE_JOB, (job) => finalizeCall(ctx, job), { concurrency: 4, maxAttempts: 5 });
  // One dispatcher job per running campaign at a time (its unique key); each look is one short transaction.
  ctx.jobs.register<{ campaign_id: string }>(DISPATCH_JOB, (job) => dispatchCampaign(ctx, (workspaceId, input, extra) => createOutboundCall(ctx, ctx.carriers, workspaceId, input, extra), job), { concurrency: 4, maxAttempts: 1000 });
  // A recharge waits on Stripe for a second or two; one per wallet at a time (its unique key).
  ctx.jobs.register<{ workspace_id: string }>(AUTO_RECHARGE_JOB, (job) => runAutoRecharge(ctx, job), { concurrency: 2, maxAttempts: 8 });
  // A test run holds its cases' calls (up to its own concurrency each): a few runs at once on a node.
  ctx.jobs.register<{ run_id: string }>(TEST_RUN_JOB, (job) => runTestRun(ctx, job), { concurrency: 4, maxAttempts: TEST_RUN_ATTEMPTS });
  ctx.jobs.register<{ schedule_id: string; run_at: number }>(RUN_JOB, (job) => runSchedule(ctx, (workspaceId, input, extra) => createOutboundCall(ctx, ctx.carriers, workspaceId, input, extra), job), { concurrency: 4, maxAttempts: 3 });
}

export interface RunningServer {
  port: number;
  /** Where Prometheus scrapes (http://host:port/metrics), or null without --metrics-listen. */
  metricsUrl: string | null;
  /** The address and port the socket is bound to, as the kernel has it (0.0.0.0:8080). */
  boundTo: string;
  url: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** The others declared this node lost (it was silent past the bound): its calls are cut here, and the process should exit. */
  onLost?(lostBy: string | null): void;
}

export function startServer(ctx: Parley, options: ServerOptions = {}): RunningServer {
  const { app } = createApp(ctx, ctx.services);
  // A recogniser the executable carries is extracted, or its copy checked (~0.1 s), before anything
  // listens: not on the event loop in a live call's first turn or a health check.
  pocketsphinxAvailability();
  // A shared --files-dir that is missing or read-only is said now, not at the first call's end.
  if (ctx.config.filesDir) prepareFilesDir(ctx.config.filesDir);
  // Its own address, bound first: a taken metrics port stops the start before the API serves anyone.
  const metricsAddress = ctx.config.metricsAddress;
  const metrics = metricsAddress ? startMetricsListener(ctx.metrics, metricsAddress, ctx.config.metricsToken) : null;
  try {
    // reusePort off: a second Parley on the same port must fail, not split the traffic with the first.
    app.listen({ hostname: ctx.config.host, port: ctx.config.port, maxRequestBodySize: MAX_REQUEST_BODY_BYTES, development: false, reusePort: false });
  } catch (error) {
    void metrics?.stop();
    throw listenError(error, ctx.config.host, ctx.config.port) ?? error;
  }
  const processFigures = processMetrics(ctx.metrics);
  if (metricsAddress && !ctx.config.metricsToken && !isLoopback(metricsAddress.host)) {
    ctx.logger.warn("the metrics listener answers anyone who reaches it: firewall it, or set --metrics-token", { metrics_listen: ctx.config.metricsListen });
  }
  const server = app.server!;
  const port = server.port!;
  // Under request load the bookkeeping rows (audit, key use) commit on a thread of their own.
  ctx.writeBehind.startThread(ctx.dialect === "postgres" ? ctx.config.databaseUrl : ctx.dataDir.database);
  ctx.publicUrl = publicBaseUrl(ctx.config, port);
  const previousNode = previousNodeOfDataDir(ctx);
  registerNode(ctx, ctx.config.nodeUrl || ctx.publicUrl);
  const heartbeat = startHeartbeat(ctx, () => whenLost(ctx, options));
  // The process that served this data dir before is gone (this one holds its lock): its calls and jobs need not wait for the loss sweep.
  if (previousNode && ctx.dialect === "postgres" && takeOverDeadNode(ctx, previousNode, (id) => takeOverNode(ctx, id))) ctx.jobs.wake();
  void storeLeftRecordings(ctx).then(
    (stored) => stored && ctx.logger.warn("stored recordings a previous run left in the data dir", { recordings: stored }),
    (error) => ctx.logger.error("could not store the recordings a previous run left in the data dir", { error }),
  );
  const sweeps = startSystemSweeps(ctx, [
    {
      name: "orphaned calls",
      atStart: true,
      run() {
        const ended = endCallsOfPreviousRun(ctx);
        if (ended) ctx.logger.warn("ended calls a previous run left live", { calls: ended });
      },
    },
    { name: "call watchdog", pattern: "*/5 * * * * *", run: () => watchLiveCalls(ctx) },
    // Every node looks; each lost node is claimed by one (its own claim, not a sweep_runs one).
    {
      name: "lost nodes",
      pattern: LOSS_SWEEP_PATTERN,
      run() {
        if (takeOverLostNodes(ctx, (id) => takeOverNode(ctx, id), heartbeat.steadySince()).length) ctx.jobs.wake();
      },
    },
    // Numbers' months that began since the last look (or while the server was down), each charged once.
    { name: "number fees", atStart: true, once: true, pattern: "*/10 * * * *", run: () => chargeNumberFees(ctx) },
    ...paymentSweeps(ctx),
    ...auditRetentionSweeps(ctx),
    // Expired chat and visitor sessions and spent voice tokens: reads already ignore them, so no request deletes.
    {
      name: "expired conversations",
      pattern: "*/10 * * * *",
      once: true,
      run() {
        pruneChatSessions(ctx);
        pruneWidgetSessions(ctx);
        pruneTokens(ctx);
      },
    },
  ]);
  const metering = startMetering(ctx, (call) => enginesOfCall(ctx, call));
  ctx.jobs.start();
  // SIP trunks answer on their own ports from the start.
  ctx.carriers.listen();
  // In a cluster a trunk added, changed or removed through another node is bound (or let go) here too.
  // So are suspensions and resumptions made on another node (a suspension is also told at once: calls/controls.ts).
  const followCluster = () => {
    try {
      ctx.carriers.resync();
      refreshSuspendedWorkspaces(ctx);
    } catch (error) {
      ctx.logger.warn("the cluster's carrier connections and suspensions could not be read; tried again shortly", { error: (error as Error).message }); // the database is away
    }
  };
  const clusterSync = ctx.dialect === "postgres" ? setInterval(followCluster, CLUSTER_SYNC_MS) : null;
  const hostname = server.hostname ?? ctx.config.host;
  return {
    port,
    metricsUrl: metrics?.url ?? null,
    boundTo: `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`,
    url: `http://${ctx.config.host.includes(":") ? `[${ctx.config.host}]` : ctx.config.host === "0.0.0.0" ? "127.0.0.1" : ctx.config.host}:${port}`,
    async stop() {
      sweeps.stop();
      if (clusterSync) clearInterval(clusterSync);
      metering.stop();
      processFigures.stop();
      await metrics?.stop();
      await server.stop(false);
      await ctx.jobs.stop(JOB_SHUTDOWN_DEADLINE_MS);
      const ended = await endLiveCallsAtShutdown(ctx, JOB_SHUTDOWN_DEADLINE_MS);
      if (ended) ctx.logger.info("live calls ended at shutdown", { calls: ended });
      // Their recordings reach the file store before this node says it stopped (readers elsewhere wait until then).
      await recordingsStored(ctx, JOB_SHUTDOWN_DEADLINE_MS);
      await closeFileStore(ctx);
      heartbeat.stop();
      markStopped(ctx);
    },
  };
}

/** A lost node's holdings, in the transaction that claims it: its live calls end (`node_lost`), its jobs run elsewhere now. */
function takeOverNode(ctx: Parley, nodeId: string): { calls_ended: number; jobs_released: number } {
  return { calls_ended: endCallsOfLostNode(ctx, nodeId), jobs_released: releaseLeasesOf(ctx.db, nodeId, ctx.clock.now()) };
}

/**
 * The others declared this node lost and took over what it held: nothing here may go on as its owner.
 * Its calls are cut without writing their end (it is written; a late end finds the call ended and
 * changes nothing), its runner claims no more (the leases it held are gone: its writes change nothing),
 * and the process is told to exit, to come back as a new node.
 */
function whenLost(ctx: Parley, options: ServerOptions): void {
  const by = lostBy(ctx);
  ctx.logger.error("this node was declared lost by the others (it was silent past the bound): they ended its calls and took its jobs; it stops", { lost_by: by, node_id: ctx.nodeId });
  void ctx.jobs.stop(0);
  for (const call of [...liveCalls(ctx).values()]) call.terminate("node_lost");
  options.onLost?.(by);
}

/** The engines of the agent version a call was made with (what metering prices speech and LLM by). */
function enginesOfCall(ctx: AppContext, call: { id: string }) {
  const row = findCall(ctx, call.id);
  const config = row ? agentConfigForCall(ctx, row) : null;
  return config ? enginesOf(config) : ({ speech: "builtin", llm: "builtin" } as const);
}

/** What the agent test runner reaches: test calls on this node, the agent's tools at the case's version, the workspace's language models. */
export function runnerDeps(ctx: AppContext): RunnerDeps {
  const brains = brainServices(ctx);
  return {
    startTestCall: (call, makeLeg) => startTestCall(ctx, brains, call, makeLeg),
    readCall: (workspaceId, callId) => readTestCall(ctx, workspaceId, callId),
    languageModel(workspaceId, providerId) {
      const row = findProvider(ctx.db, workspaceId, providerId);
      return row && row.kind === "openai-compatible" ? { connection: connectionOf(ctx, row), chatModel: (row.settings.chat_model as string | undefined) ?? null } : null;
    },
    agentTools(workspaceId, agentId, version) {
      const config = configAtVersion(ctx, workspaceId, agentId, version);
      return config ? brains.tools(workspaceId, toolIdsOf(config)).map((tool) => ({ id: tool.id, name: tool.name })) : [];
    },
  };
}

function runCaseWithRunner(ctx: AppContext, request: CaseRequest, signal: AbortSignal): Promise<CaseVerdict> {
  return runTestCase(runnerDeps(ctx), { workspaceId: request.workspaceId, agentId: request.agentId, agentVersion: request.version, testRunId: request.runId, definition: request.definition }, signal);
}
