// The scripted caller's turns: each says something, presses keys, pauses, stays silent, plays a WAV
// file or hangs up; a spoken turn may talk over the agent. Errors the server names under a turn show there.
import { useId } from "preact/hooks";
import type { ScriptTurn } from "./api.ts";
import { TURN_KINDS, turnKind } from "./case-draft.ts";
import { Field, SelectField } from "../../../ui/field.tsx";
import { Check, errorUnder, NumberField, type Errors } from "../form-kit.tsx";

/** A WAV file as the base64 text the API takes. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function ScriptTurns({ turns, onChange, errors }: { turns: ScriptTurn[]; onChange: (turns: ScriptTurn[]) => void; errors: Errors }) {
  const set = (i: number, turn: ScriptTurn) => onChange(turns.map((t, j) => (j === i ? turn : t)));
  return (
    <>
      {turns.map((turn, i) => {
        const at = `caller.turns[${i}]`;
        const kind = turnKind(turn);
        // An error about the turn as a whole ("exactly one action"), not one of its fields.
        const whole = errors[at];
        return (
          <fieldset key={i} class="agents-node tests-turn">
            <legend>Turn {i + 1}</legend>
            {whole && <p class="field-error">{whole}</p>}
            <div class="agents-grid">
              <SelectField label="The caller" name={`${at}.kind`} value={kind} onChange={(next) => set(i, TURN_KINDS.find((k) => k.value === next)!.fresh())} options={TURN_KINDS.map((k) => ({ value: k.value, label: k.label }))} />
              {kind === "say" && <Field label="Words" name={`${at}.say`} value={turn.say ?? ""} error={errors[`${at}.say`]} onInput={(e) => set(i, { ...turn, say: e.currentTarget.value })} />}
              {kind === "dtmf" && <Field label="Keys" name={`${at}.dtmf`} hint="0–9, *, #, A–D" value={turn.dtmf ?? ""} error={errors[`${at}.dtmf`]} onInput={(e) => set(i, { ...turn, dtmf: e.currentTarget.value })} />}
              {kind === "pause_ms" && <NumberField label="Pause (ms)" name={`${at}.pause_ms`} min={0} value={turn.pause_ms} errors={errors} onChange={(pause_ms) => set(i, { ...turn, pause_ms })} />}
              {kind === "silence_ms" && <NumberField label="Silence (ms)" name={`${at}.silence_ms`} min={0} value={turn.silence_ms} errors={errors} onChange={(silence_ms) => set(i, { ...turn, silence_ms })} />}
              {kind === "audio" && <AudioInput at={at} turn={turn} error={errorUnder(errors, `${at}.audio`)} onChange={(audio) => set(i, { ...turn, audio })} />}
            </div>
            {(kind === "say" || kind === "audio") && (
              <div class="agents-grid">
                <Check name={`${at}.barge_in`} checked={!!turn.barge_in} onChange={(on) => set(i, { ...turn, barge_in: on || undefined, barge_in_after_ms: on ? turn.barge_in_after_ms : undefined })}>
                  Talk over the agent
                </Check>
                {turn.barge_in && <NumberField label="Start after the agent has talked (ms)" name={`${at}.barge_in_after_ms`} min={0} hint="Default 800" value={turn.barge_in_after_ms} errors={errors} onChange={(barge_in_after_ms) => set(i, { ...turn, barge_in_after_ms })} />}
              </div>
            )}
            <button type="button" class="button danger-ghost" aria-label={`Remove turn ${i + 1}`} disabled={turns.length === 1} onClick={() => onChange(turns.filter((_, j) => j !== i))}>
              Remove
            </button>
          </fieldset>
        );
      })}
      <button type="button" class="button secondary agents-inline" onClick={() => onChange([...turns, { say: "" }])}>
        Add a turn
      </button>
    </>
  );
}

function AudioInput({ at, turn, error, onChange }: { at: string; turn: ScriptTurn; error?: string; onChange: (audio: string) => void }) {
  const id = useId();
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>WAV file</label>
      <input id={id} name={`${at}.audio`} type="file" accept="audio/wav,.wav" aria-invalid={error ? "true" : undefined} onChange={async (e) => {
        const file = e.currentTarget.files?.[0];
        if (file) onChange(await base64Of(file));
      }} />
      <p class="hint">{turn.audio ? `A file of ${Math.round((turn.audio.length * 3) / 4 / 1024)} KB is set.` : "PCM 16-bit mono, 8–48 kHz."}</p>
      {error && <p class="field-error">{error}</p>}
    </div>
  );
}
