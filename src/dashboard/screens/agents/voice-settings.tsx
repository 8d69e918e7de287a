// How the agent sounds and hears: its voice (from the connection's voices, with a spoken preview) and
// its transcriber. `builtin` is the offline engines inside Parley.
import { useEffect, useState } from "preact/hooks";
import type { AgentTranscriber, AgentVoice, Provider } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { Field, SelectField } from "../../ui/field.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
import { NumberField, type Errors } from "./form-kit.tsx";

const BUILTIN = { value: "builtin", label: "Built-in (offline, inside Parley)" };

/** The connections that can serve a role, the built-in engines first. */
export function providerOptions(providers: Provider[], capability: Provider["capabilities"][number], current: string) {
  const options = [BUILTIN, ...providers.filter((p) => p.id !== "builtin" && p.capabilities.includes(capability)).map((p) => ({ value: p.id, label: `${p.name} (${p.kind})` }))];
  return options.some((o) => o.value === current) || !current ? options : [...options, { value: current, label: current }];
}

export function VoiceSettings({ voice, onChange, errors, providers, previewText }: { voice: AgentVoice; onChange: (voice: AgentVoice) => void; errors: Errors; providers: Provider[]; previewText: string }) {
  const [voices] = useLoad(() => session.client.voices.list({ provider_id: voice.provider_id }), [voice.provider_id]);
  const [audio, setAudio] = useState<string | null>(null);
  const previewing = useAction();
  useEffect(() => () => void (audio && URL.revokeObjectURL(audio)), [audio]);
  const preview = () =>
    previewing.run(async () => {
      const bytes = await session.client.voices.preview({ provider_id: voice.provider_id, voice_id: voice.voice_id, speed: voice.speed, text: previewText || undefined });
      setAudio(URL.createObjectURL(new Blob([bytes as BlobPart], { type: "audio/wav" })));
    });
  const listed = voices.status === "ready" ? voices.data.data : [];
  const voiceOptions = listed.map((v) => ({ value: v.id, label: [v.name, v.language, v.gender].filter(Boolean).join(" · ") }));
  if (!listed.some((v) => v.id === voice.voice_id)) voiceOptions.unshift({ value: voice.voice_id, label: voice.voice_id });
  return (
    <fieldset class="agents-section">
      <legend>Voice</legend>
      <SelectField label="Voice provider" name="voice.provider_id" value={voice.provider_id} error={errors["voice.provider_id"]} onChange={(provider_id) => onChange({ ...voice, provider_id })} options={providerOptions(providers, "tts", voice.provider_id)} />
      {voices.status === "failed" && <ProblemNotice problem={voices.problem} />}
      {voices.status === "ready" && voices.data.errors.map((e) => <p key={e.provider_id} class="field-error">{e.message}</p>)}
      {voices.status === "ready" && listed.length > 0 ? (
        <SelectField label="Voice" name="voice.voice_id" value={voice.voice_id} error={errors["voice.voice_id"]} onChange={(voice_id) => onChange({ ...voice, voice_id })} options={voiceOptions} />
      ) : (
        <Field label="Voice" name="voice.voice_id" hint={voices.status === "loading" ? "Loading the voices…" : "The provider's voice id."} value={voice.voice_id} error={errors["voice.voice_id"]} onInput={(e) => onChange({ ...voice, voice_id: e.currentTarget.value })} />
      )}
      <NumberField label="Speed" name="voice.speed" min={0.5} max={2} step={0.1} hint="0.5 to 2; 1 is normal." value={voice.speed} errors={errors} onChange={(speed) => onChange({ ...voice, speed })} />
      <div class="agents-row">
        <button type="button" class="button secondary" disabled={previewing.busy || !voice.voice_id} onClick={preview}>
          {previewing.busy ? "Synthesising…" : "Preview voice"}
        </button>
        {audio && <audio class="agents-audio" controls autoplay src={audio} aria-label="Voice preview" />}
      </div>
      <ProblemNotice problem={previewing.problem} />
    </fieldset>
  );
}

export function TranscriberSettings({ transcriber, onChange, errors, providers }: { transcriber: AgentTranscriber; onChange: (t: AgentTranscriber) => void; errors: Errors; providers: Provider[] }) {
  return (
    <fieldset class="agents-section">
      <legend>Transcriber</legend>
      <SelectField label="Transcriber provider" name="transcriber.provider_id" value={transcriber.provider_id} error={errors["transcriber.provider_id"]} onChange={(provider_id) => onChange({ ...transcriber, provider_id })} options={providerOptions(providers, "stt", transcriber.provider_id)} />
      <div class="agents-grid">
        <Field label="Model (optional)" name="transcriber.model" value={transcriber.model ?? ""} error={errors["transcriber.model"]} onInput={(e) => onChange({ ...transcriber, model: e.currentTarget.value || undefined })} />
        <Field label="Language (optional)" name="transcriber.language" hint="BCP 47, e.g. en-US" value={transcriber.language ?? ""} error={errors["transcriber.language"]} onInput={(e) => onChange({ ...transcriber, language: e.currentTarget.value || undefined })} />
      </div>
    </fieldset>
  );
}
