// What the TypeScript library's signatures promise a user's code: compiled by tsc on its own in
// test/sdk/typescript.test.ts (and with the repository by `npm run typecheck`); never run.
import { Parley, type Call, type GetCallTranscriptResponse } from "../../../src/sdk/ts/src/index.ts";

/** Compiles only when A and B are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(check: Same<A, B>): Same<A, B> => check;

export async function transcriptsByFormat(parley: Parley, id: string, chosen: "json" | "text") {
  const text = await parley.calls.transcript(id, { format: "text" });
  const json = await parley.calls.transcript(id);
  const explicit = await parley.calls.transcript(id, { format: "json" });
  const either = await parley.calls.transcript(id, { format: chosen });
  same<typeof text, string>(true);
  same<typeof json, GetCallTranscriptResponse>(true);
  same<typeof explicit, GetCallTranscriptResponse>(true);
  same<typeof either, GetCallTranscriptResponse | string>(true);
  // @ts-expect-error a text transcript has no turns
  void text.turns;
  return json.turns.length + text.length;
}

export async function waitingForACall(parley: Parley, id: string): Promise<Call[]> {
  return [
    await parley.calls.wait(id, { maxWaitMs: 60_000, intervalMs: 250, requestTimeoutMs: 5_000 }),
    // the old name still compiles (deprecated: it was always the total wait)
    await parley.calls.wait(id, { timeoutMs: 60_000 }),
  ];
}
