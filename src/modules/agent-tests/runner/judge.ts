import type { Static } from "elysia";
import type { AgentSaysExpectation, ExpectationDefinition, TranscriptTurn } from "../definition.ts";
import type { LanguageModel } from "./deps.ts";
import type { RubricVerdict } from "./evaluate.ts";
import { completeChat } from "./language-model.ts";

/** A judge that could not give a verdict: the case is an error, never a pass. */
export class JudgeUnavailable extends Error {}

const INSTRUCTIONS = [
  "You judge what a voice agent said on a phone call against a rubric.",
  'Answer with JSON only: {"pass": true|false, "reason": "one sentence saying why"}.',
].join(" ");

/**
 * Every `rubric` expectation judged by its connection, by the expectation's index. The judge sees the
 * whole conversation and the words in question (one agent turn, or all of the agent's side).
 */
export async function judgeRubrics(
  expectations: ExpectationDefinition[],
  transcript: Static<typeof TranscriptTurn>[],
  languageModel: (providerId: string) => LanguageModel | null,
  signal?: AbortSignal,
): Promise<Map<number, RubricVerdict>> {
  const verdicts = new Map<number, RubricVerdict>();
  for (const [index, expectation] of expectations.entries()) {
    if (expectation.type !== "agent_says" || expectation.rubric === undefined) continue;
    verdicts.set(index, await judgeOne(expectation, transcript, languageModel, index, signal));
  }
  return verdicts;
}

async function judgeOne(
  expectation: Static<typeof AgentSaysExpectation>,
  transcript: Static<typeof TranscriptTurn>[],
  languageModel: (providerId: string) => LanguageModel | null,
  index: number,
  signal?: AbortSignal,
): Promise<RubricVerdict> {
  const agent = transcript.filter((turn) => turn.role === "agent");
  const said = expectation.turn === undefined ? agent.map((turn) => turn.text).join(" ") : (agent[expectation.turn]?.text ?? "");
  const model = expectation.judge_provider_id ? languageModel(expectation.judge_provider_id) : null;
  if (!model) throw new JudgeUnavailable(`expectations[${index}]: the judge connection ${expectation.judge_provider_id ?? "(none)"} does not exist`);
  const conversation = transcript.map((turn) => `${turn.role === "agent" ? "Agent" : "Caller"}: ${turn.text}`).join("\n");
  const what = expectation.turn === undefined ? "everything the agent said" : `the agent's turn ${expectation.turn} (its greeting is turn 0)`;
  let answer: string;
  try {
    answer = await completeChat(
      model,
      undefined,
      [
        { role: "system", content: INSTRUCTIONS },
        { role: "user", content: `Conversation:\n${conversation || "(nothing was said)"}\n\nJudge ${what}:\n${JSON.stringify(said)}\n\nRubric: ${expectation.rubric}` },
      ],
      signal,
    );
  } catch (error) {
    throw new JudgeUnavailable(`expectations[${index}]: the judge could not be reached: ${(error as Error).message}`);
  }
  const verdict = parseVerdict(answer);
  if (!verdict) throw new JudgeUnavailable(`expectations[${index}]: the judge did not answer with a verdict: ${JSON.stringify(answer.slice(0, 200))}`);
  return { ...verdict, said };
}

/** `{"pass": …, "reason": …}`, also when the model wrapped it in prose or a code fence. */
export function parseVerdict(answer: string): { pass: boolean; reason: string } | null {
  const json = /\{[\s\S]*\}/.exec(answer)?.[0];
  if (!json) return null;
  try {
    const parsed = JSON.parse(json) as { pass?: unknown; reason?: unknown };
    return typeof parsed.pass === "boolean" ? { pass: parsed.pass, reason: typeof parsed.reason === "string" ? parsed.reason : "" } : null;
  } catch {
    return null;
  }
}
