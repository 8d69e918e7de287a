// A campaign's settings as a form draft, shared by the new-campaign form and the settings editor: who
// calls and from which number, the pace, the calling hours (days, times, time zone), the retry policy,
// when to start and stop, and the do-not-call list. The server's errors[] name the fields they mark.
import { useId } from "preact/hooks";
import type { Agent, Campaign, CampaignRetry, CampaignUpdate, PhoneNumber } from "../../../sdk/ts/src/index.ts";
import { Field, SelectField, TextAreaField } from "../../ui/field.tsx";
import { agentOptions } from "../numbers/workspace-lists.ts";
import { Check, errorUnder, splitList } from "../agents/form-kit.tsx";

export interface SettingsDraft {
  name: string;
  agentId: string;
  fromId: string;
  concurrency: string;
  perMinute: string;
  country: string;
  /** Calls only within the hours below (else at any time). */
  windowOn: boolean;
  days: number[];
  start: string;
  end: string;
  timezone: string;
  contactTimezone: boolean;
  retryOn: CampaignRetry["on"];
  maxAttempts: string;
  delayMinutes: string;
  /** datetime-local values, in the browser's time zone. */
  startAt: string;
  endAt: string;
  doNotCall: string;
}

export const DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
export const OUTCOMES: { value: CampaignRetry["on"][number]; label: string }[] = [
  { value: "no_answer", label: "No answer" },
  { value: "busy", label: "Busy" },
  { value: "voicemail", label: "Voicemail" },
  { value: "failed", label: "Failed" },
];
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** An instant as a datetime-local value in this browser's time zone. */
function localInput(iso: string | null): string {
  if (!iso) return "";
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A datetime-local value as an instant (left as typed when it is not a date, for the server to name). */
function instant(local: string): string | null {
  if (!local) return null;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? local : date.toISOString();
}

/** The draft of a new campaign (the server's defaults), or of an existing one's settings. */
export function draftOf(campaign?: Campaign): SettingsDraft {
  const window = campaign?.window;
  const retry = campaign?.retry;
  return {
    name: campaign?.name ?? "",
    agentId: campaign?.agent_id ?? "",
    fromId: campaign?.from_number_id ?? "",
    concurrency: String(campaign?.concurrency ?? 5),
    perMinute: String(campaign?.calls_per_minute ?? 60),
    country: campaign?.default_country ?? "US",
    windowOn: !!window,
    days: window?.days ?? [1, 2, 3, 4, 5],
    start: window?.start ?? "09:00",
    end: window?.end ?? "17:00",
    timezone: window?.timezone ?? ZONE,
    contactTimezone: window?.contact_timezone ?? true,
    retryOn: (retry?.on as CampaignRetry["on"] | undefined) ?? ["no_answer", "busy"],
    maxAttempts: String(retry?.max_attempts ?? 2),
    delayMinutes: String(retry?.delay_minutes ?? 60),
    startAt: localInput(campaign?.start_at ?? null),
    endAt: localInput(campaign?.end_at ?? null),
    doNotCall: (campaign?.do_not_call ?? []).join("\n"),
  };
}

/** Every setting of the draft, as the API takes it (all of them: a PATCH sends the whole form). */
export function settingsOf(draft: SettingsDraft): Required<Pick<CampaignUpdate, "name" | "agent_id" | "from_number_id" | "concurrency" | "calls_per_minute" | "default_country" | "window" | "retry" | "start_at" | "end_at" | "do_not_call">> {
  return {
    name: draft.name,
    agent_id: draft.agentId,
    from_number_id: draft.fromId || null,
    concurrency: Number(draft.concurrency),
    calls_per_minute: Number(draft.perMinute),
    default_country: draft.country.trim().toUpperCase(),
    window: draft.windowOn ? { days: draft.days, start: draft.start, end: draft.end, timezone: draft.timezone.trim(), contact_timezone: draft.contactTimezone } : null,
    retry: { on: draft.retryOn, max_attempts: Number(draft.maxAttempts), delay_minutes: Number(draft.delayMinutes) },
    start_at: instant(draft.startAt),
    end_at: instant(draft.endAt),
    do_not_call: splitList(draft.doNotCall),
  };
}

/** Checkboxes choosing some of `options`, with the error the server gave the list (or one of its items). */
function CheckGroup<T extends string | number>({ legend, name, options, chosen, error, onChange }: { legend: string; name: string; options: { value: T; label: string }[]; chosen: T[]; error?: string; onChange: (chosen: T[]) => void }) {
  const id = useId();
  return (
    <fieldset class="campaigns-checks" aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <Check key={option.value} name={`${name}.${option.value}`} checked={chosen.includes(option.value)} onChange={(on) => onChange(on ? [...chosen, option.value] : chosen.filter((x) => x !== option.value))}>
          {option.label}
        </Check>
      ))}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </fieldset>
  );
}

interface FieldsProps {
  draft: SettingsDraft;
  set: (part: Partial<SettingsDraft>) => void;
  errors: Record<string, string>;
  agents: Agent[];
  numbers: PhoneNumber[];
  autoFocus?: boolean;
}

export function SettingsFields({ draft, set, errors, agents, numbers, autoFocus }: FieldsProps) {
  return (
    <>
      <Field label="Name" name="name" required autoFocus={autoFocus} value={draft.name} error={errors.name} onInput={(e) => set({ name: e.currentTarget.value })} />
      <SelectField label="Agent" name="agent_id" value={draft.agentId} onChange={(agentId) => set({ agentId })} options={agentOptions(agents)} error={errors.agent_id} />
      <SelectField
        label="Caller id"
        name="from_number_id"
        value={draft.fromId}
        onChange={(fromId) => set({ fromId })}
        options={[{ value: "", label: "The agent's number" }, ...numbers.map((number) => ({ value: number.id, label: number.label ? `${number.number} (${number.label})` : number.number }))]}
        error={errors.from_number_id}
      />
      <div class="ops-row">
        <Field label="Simultaneous calls" name="concurrency" type="number" min={1} value={draft.concurrency} error={errors.concurrency} onInput={(e) => set({ concurrency: e.currentTarget.value })} />
        <Field label="Calls per minute" name="calls_per_minute" type="number" min={1} value={draft.perMinute} error={errors.calls_per_minute} onInput={(e) => set({ perMinute: e.currentTarget.value })} />
      </div>
      <Field label="Default country" name="default_country" value={draft.country} hint="For numbers written without +country code (two letters)." error={errors.default_country} onInput={(e) => set({ country: e.currentTarget.value })} />

      <fieldset class={errorUnder(errors, "window") ? "ops-fieldset invalid" : "ops-fieldset"}>
        <legend>Calling hours</legend>
        <Check name="window.enabled" checked={draft.windowOn} onChange={(windowOn) => set({ windowOn })}>
          Call only on these days and hours
        </Check>
        {draft.windowOn && (
          <>
            <CheckGroup legend="Days" name="window.days" options={DAYS.map((label, i) => ({ value: i + 1, label }))} chosen={draft.days} error={errorUnder(errors, "window.days")} onChange={(days) => set({ days: days.sort() })} />
            <div class="ops-row">
              <Field label="From" name="window.start" type="time" value={draft.start} error={errors["window.start"]} onInput={(e) => set({ start: e.currentTarget.value })} />
              <Field label="Until" name="window.end" type="time" value={draft.end} error={errors["window.end"]} onInput={(e) => set({ end: e.currentTarget.value })} />
            </div>
            <Field label="Time zone" name="window.timezone" hint="IANA, e.g. America/New_York." value={draft.timezone} error={errors["window.timezone"]} onInput={(e) => set({ timezone: e.currentTarget.value })} />
            <Check name="window.contact_timezone" checked={draft.contactTimezone} onChange={(contactTimezone) => set({ contactTimezone })}>
              Use each contact's own time zone (a <code>timezone</code> column) when it has one
            </Check>
          </>
        )}
      </fieldset>

      <fieldset class={errorUnder(errors, "retry") ? "ops-fieldset invalid" : "ops-fieldset"}>
        <legend>Retries</legend>
        <CheckGroup legend="Try again after" name="retry.on" options={OUTCOMES} chosen={draft.retryOn} error={errorUnder(errors, "retry.on")} onChange={(retryOn) => set({ retryOn })} />
        <div class="ops-row">
          <Field label="Attempts in total" name="retry.max_attempts" type="number" min={1} max={10} hint="The first one included." value={draft.maxAttempts} error={errors["retry.max_attempts"]} onInput={(e) => set({ maxAttempts: e.currentTarget.value })} />
          <Field label="Wait between attempts (minutes)" name="retry.delay_minutes" type="number" min={1} max={10080} value={draft.delayMinutes} error={errors["retry.delay_minutes"]} onInput={(e) => set({ delayMinutes: e.currentTarget.value })} />
        </div>
      </fieldset>

      <div class="ops-row">
        <Field label="Begin dialing at" name="start_at" type="datetime-local" hint={`Empty: when started. In your time zone (${ZONE}).`} value={draft.startAt} error={errors.start_at} onInput={(e) => set({ startAt: e.currentTarget.value })} />
        <Field label="Stop dialing at" name="end_at" type="datetime-local" hint="Contacts still waiting then are skipped." value={draft.endAt} error={errors.end_at} onInput={(e) => set({ endAt: e.currentTarget.value })} />
      </div>
      <TextAreaField label="Do-not-call list" name="do_not_call" rows={3} hint="Numbers never to call, +country code, one a line. Uploads refuse them." value={draft.doNotCall} error={errorUnder(errors, "do_not_call")} onInput={(e) => set({ doNotCall: e.currentTarget.value })} />
    </>
  );
}
