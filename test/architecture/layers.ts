// Which part of src/ may import which: a file may import files of its own layer or a lower one,
// never a higher one, so dependencies run one way (../shared/STYLE.md). Longest prefix wins.
export const LAYERS: readonly (readonly string[])[] = [
  // The client libraries stand alone (they ship on their own); architecture.test.ts checks they import only themselves.
  ["sdk/"],
  // The dashboard runs in browsers and reaches the server only through the client library (architecture.test.ts).
  ["dashboard/"],
  ["lib/"],
  ["config/", "db/", "net/", "core/version.ts"],
  ["core/"],
  ["jobs/", "cluster/"],
  // Where recordings are kept (a directory, or the database in chunks): below every feature that stores files.
  ["files/"],
  ["webhooks/"],
  ["http/", "scheduler/"],
  // The metrics listener and the process's own figures: beside the API, never inside it.
  ["metrics/"],
  // What the binary serves to browsers (the widget runtime, the voice client): text, built from nothing above.
  ["web/"],
  ["providers/"],
  ["knowledge/"],
  ["voice/media/"],
  ["voice/speech/"],
  ["telephony/"],
  ["voice/brains/flow/"],
  ["voice/agent-config.ts"],
  // Turn-taking decisions (words and durations in, a verdict out) and settings: above the agent configuration they read, below the runtime.
  ["voice/turns/"],
  ["voice/brains/"],
  ["voice/readiness.ts"],
  ["voice/runtime/"],
  // Features, each above the ones it may use (through the composition root, anything else).
  ["modules/workspaces/"],
  ["modules/audit-log/"],
  ["modules/api-keys/"],
  ["modules/auth/"],
  ["modules/members/"],
  ["modules/webhooks/"],
  ["modules/providers/"],
  ["modules/carriers/"],
  ["modules/tools/"],
  ["modules/knowledge-base/"],
  ["modules/voices/"],
  ["modules/agents/"],
  ["modules/phone-numbers/"],
  ["modules/calls/"],
  // Agent test suites: they place test calls and judge them, reaching calls, agents and providers through the composition root.
  ["modules/agent-tests/"],
  ["modules/campaigns/"],
  ["modules/schedules/"],
  ["modules/realtime/"],
  ["modules/widgets/"],
  ["modules/wallet/"],
  ["modules/analytics/"],
  ["modules/operator/"],
  ["modules/front-door/"],
  ["modules/white-label/"],
  ["modules/health/"],
  ["app.ts"],
  ["server.ts"],
  ["cli/"],
  ["main.ts"],
];

/** The layer of a file (its index in LAYERS), by the longest matching prefix. */
export function layerOf(file: string): number {
  let best = -1;
  let bestLength = -1;
  LAYERS.forEach((prefixes, rank) => {
    for (const prefix of prefixes) {
      if (file.startsWith(prefix) && prefix.length > bestLength) {
        best = rank;
        bestLength = prefix.length;
      }
    }
  });
  if (best < 0) throw new Error(`${file} is in no layer: add its folder to test/architecture/layers.ts`);
  return best;
}
