// When the agent answers and when it stops: how long it waits for the caller to finish (dynamic between a
// shortest and a longest pause, or fixed), whether it starts replying during a pause, what counts as an
// interruption, and the silence and call-length limits. The agent comes back with every setting filled.
import type { TurnTakingSettings } from "../../../sdk/ts/src/index.ts";
import { Field, SelectField } from "../../ui/field.tsx";
import { Check, ListField, NumberField, type Errors } from "./form-kit.tsx";

type Interruptions = TurnTakingSettings["interruptions"];

export function TurnTakingSection({ turnTaking, onChange, errors }: { turnTaking: TurnTakingSettings; onChange: (turnTaking: TurnTakingSettings) => void; errors: Errors }) {
  const set = (part: Partial<TurnTakingSettings>) => onChange({ ...turnTaking, ...part });
  const setEndpointing = (part: Partial<TurnTakingSettings["endpointing"]>) => set({ endpointing: { ...turnTaking.endpointing, ...part } });
  const setInterruptions = (part: Partial<Interruptions>) => set({ interruptions: { ...turnTaking.interruptions, ...part } });
  const setSilence = (part: Partial<TurnTakingSettings["silence"]>) => set({ silence: { ...turnTaking.silence, ...part } });
  const { endpointing, interruptions, silence } = turnTaking;
  return (
    <fieldset class="agents-section">
      <legend>Turn-taking</legend>
      <SelectField
        label="Waiting for the caller to finish"
        name="turn_taking.endpointing.mode"
        value={endpointing.mode}
        error={errors["turn_taking.endpointing.mode"]}
        hint="Dynamic answers sooner after a finished sentence and waits longer after “and”, “um” or half a phone number."
        onChange={(mode) => setEndpointing({ mode: mode as TurnTakingSettings["endpointing"]["mode"] })}
        options={[
          { value: "dynamic", label: "Dynamic: by how finished the caller's words are" },
          { value: "fixed", label: "Fixed: always the pause before answering" },
        ]}
      />
      <div class="agents-grid">
        <NumberField label="Shortest pause (ms)" name="turn_taking.endpointing.min_delay_ms" min={100} max={5000} hint="After a finished sentence or answer." value={endpointing.min_delay_ms} errors={errors} onChange={(min_delay_ms) => setEndpointing({ min_delay_ms: min_delay_ms! })} />
        <NumberField label="Pause before answering (ms)" name="turn_taking.endpointing_ms" min={100} max={5000} hint="When the words give no clue (fixed: always)." value={turnTaking.endpointing_ms} errors={errors} onChange={(endpointing_ms) => set({ endpointing_ms: endpointing_ms! })} />
        <NumberField label="Longest pause (ms)" name="turn_taking.endpointing.max_delay_ms" min={200} max={10000} hint="After a trailing “and”, “um” or unfinished number." value={endpointing.max_delay_ms} errors={errors} onChange={(max_delay_ms) => setEndpointing({ max_delay_ms: max_delay_ms! })} />
      </div>
      <Check name="turn_taking.preemptive_generation" checked={turnTaking.preemptive_generation} onChange={(preemptive_generation) => set({ preemptive_generation })}>
        Start the reply during the caller's pause (preemptive generation); it plays only once they are done
      </Check>
      <Check name="turn_taking.interruptions.enabled" checked={interruptions.enabled} onChange={(enabled) => setInterruptions({ enabled })}>
        Callers can interrupt the agent
      </Check>
      <div class="agents-grid">
        <NumberField label="Speech that counts as an interruption (ms)" name="turn_taking.interruptions.min_speech_ms" min={50} max={2000} hint="Speech over the agent before it pauses to listen." value={interruptions.min_speech_ms} errors={errors} onChange={(min_speech_ms) => setInterruptions({ min_speech_ms: min_speech_ms! })} />
        <SelectField
          label="Interruption sensitivity"
          name="turn_taking.interruptions.sensitivity"
          value={interruptions.sensitivity}
          error={errors["turn_taking.interruptions.sensitivity"]}
          hint="How readily speech over the agent counts as a real interruption."
          onChange={(sensitivity) => setInterruptions({ sensitivity: sensitivity as Interruptions["sensitivity"] })}
          options={[
            { value: "low", label: "Low: only clear interruptions" },
            { value: "medium", label: "Medium" },
            { value: "high", label: "High: almost any words" },
          ]}
        />
        <SelectField
          label="Backchannels (“mm-hmm”, “okay”, “right”)"
          name="turn_taking.interruptions.backchannels"
          value={interruptions.backchannels}
          error={errors["turn_taking.interruptions.backchannels"]}
          hint="Whether the caller's little acknowledgements stop the agent."
          onChange={(backchannels) => setInterruptions({ backchannels: backchannels as Interruptions["backchannels"] })}
          options={[
            { value: "ignore", label: "Ignore: the agent keeps talking" },
            { value: "interrupt", label: "Interrupt: they stop the agent" },
          ]}
        />
      </div>
      <div class="agents-grid">
        <NumberField label="Remind after silence (s)" name="turn_taking.silence.reminder_after_s" min={1} max={600} value={silence.reminder_after_s} errors={errors} onChange={(reminder_after_s) => setSilence({ reminder_after_s: reminder_after_s! })} />
        <NumberField label="Hang up after silence (s)" name="turn_taking.silence.timeout_s" min={1} max={3600} value={silence.timeout_s} errors={errors} onChange={(timeout_s) => setSilence({ timeout_s: timeout_s! })} />
        <NumberField label="Longest call (s)" name="turn_taking.max_duration_s" min={10} max={14400} value={turnTaking.max_duration_s} errors={errors} onChange={(max_duration_s) => set({ max_duration_s: max_duration_s! })} />
      </div>
      <Field label="Reminder" name="turn_taking.silence.reminder_message" value={silence.reminder_message} error={errors["turn_taking.silence.reminder_message"]} onInput={(e) => setSilence({ reminder_message: e.currentTarget.value })} />
      <ListField label="Phrases that end the call" name="turn_taking.end_call_phrases" lines hint="One a line." value={turnTaking.end_call_phrases} errors={errors} onChange={(end_call_phrases) => set({ end_call_phrases })} />
    </fieldset>
  );
}
