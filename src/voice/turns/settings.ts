// An agent's turn_taking as the voice runtime uses it: every setting with the value in effect, whatever
// the stored agent holds. Agents stored before the dynamic-endpointing settings (issue 37) map onto them:
// their endpointing_ms becomes the neutral wait, with the default minimum and maximum widened around it.
import type { FieldError } from "../../http/errors.ts";
import { defaultTurnTaking, type TurnTakingFilled, type TurnTakingInput } from "../agent-config.ts";

type Interruptions = TurnTakingFilled["interruptions"];

/** The effective settings, in the runtime's units and names. */
export interface ResolvedTurnTaking {
  endpointing: {
    /** dynamic: the policy picks a wait between minMs and maxMs; fixed: always neutralMs. */
    mode: TurnTakingFilled["endpointing"]["mode"];
    /** The wait after a finished sentence or answer. */
    minMs: number;
    /** The wait when the words give no clue (endpointing_ms). */
    neutralMs: number;
    /** The wait after a trailing filler, conjunction or unfinished number. */
    maxMs: number;
  };
  /** Start the reply at a pause; play it only once the turn is confirmed. */
  preemptive: boolean;
  interruptions: { enabled: boolean; minSpeechMs: number; sensitivity: Interruptions["sensitivity"]; backchannels: Interruptions["backchannels"] };
  silence: { reminderAfterS: number; reminderMessage: string; timeoutS: number };
  maxDurationS: number;
  endCallPhrases: string[];
}

const DEFAULTS = defaultTurnTaking();

export function resolveTurnTaking(turnTaking: TurnTakingInput): ResolvedTurnTaking {
  const neutralMs = turnTaking.endpointing_ms;
  const endpointing = turnTaking.endpointing ?? {};
  const { interruptions, silence } = turnTaking;
  return {
    endpointing: {
      mode: endpointing.mode ?? DEFAULTS.endpointing.mode,
      // A stored wait outside the default range widens it, so min <= neutral <= max holds for every agent.
      minMs: endpointing.min_delay_ms ?? Math.min(DEFAULTS.endpointing.min_delay_ms, neutralMs),
      neutralMs,
      maxMs: endpointing.max_delay_ms ?? Math.max(DEFAULTS.endpointing.max_delay_ms, neutralMs),
    },
    preemptive: turnTaking.preemptive_generation ?? DEFAULTS.preemptive_generation,
    interruptions: {
      enabled: interruptions.enabled,
      minSpeechMs: interruptions.min_speech_ms,
      sensitivity: interruptions.sensitivity ?? DEFAULTS.interruptions.sensitivity,
      backchannels: interruptions.backchannels ?? DEFAULTS.interruptions.backchannels,
    },
    silence: { reminderAfterS: silence.reminder_after_s, reminderMessage: silence.reminder_message, timeoutS: silence.timeout_s },
    maxDurationS: turnTaking.max_duration_s,
    endCallPhrases: turnTaking.end_call_phrases,
  };
}

/**
 * turn_taking with every setting written out (what the API returns and what is stored), in one key
 * order whatever the input's, so a configuration stored filled reads back as the same text.
 */
export function filledTurnTaking(turnTaking: TurnTakingInput): TurnTakingFilled {
  const { endpointing, preemptive, interruptions } = resolveTurnTaking(turnTaking);
  return {
    endpointing_ms: endpointing.neutralMs,
    endpointing: { mode: endpointing.mode, min_delay_ms: endpointing.minMs, max_delay_ms: endpointing.maxMs },
    preemptive_generation: preemptive,
    interruptions: { enabled: interruptions.enabled, min_speech_ms: interruptions.minSpeechMs, sensitivity: interruptions.sensitivity, backchannels: interruptions.backchannels },
    silence: turnTaking.silence,
    max_duration_s: turnTaking.max_duration_s,
    end_call_phrases: turnTaking.end_call_phrases,
  };
}

/** The rule across fields the schema cannot state: min_delay_ms <= endpointing_ms <= max_delay_ms. */
export function turnTakingProblems(turnTaking: TurnTakingInput, field = "turn_taking"): FieldError[] {
  const { minMs, neutralMs, maxMs } = resolveTurnTaking(turnTaking).endpointing;
  const problems: FieldError[] = [];
  if (minMs > neutralMs) problems.push({ field: `${field}.endpointing.min_delay_ms`, message: `must not be more than endpointing_ms (${neutralMs})` });
  if (maxMs < neutralMs) problems.push({ field: `${field}.endpointing.max_delay_ms`, message: `must not be less than endpointing_ms (${neutralMs})` });
  return problems;
}
