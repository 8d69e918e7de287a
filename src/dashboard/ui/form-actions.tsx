// A form's closing row: Cancel, and the submit button that says it is working while the call runs.
export function FormActions({ submit, busy, busyLabel, onCancel, danger }: { submit: string; busy: boolean; busyLabel: string; onCancel: () => void; /** The submit destroys or stops something. */ danger?: boolean }) {
  return (
    <div class="actions">
      <button type="button" class="button secondary" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" class={danger ? "button danger" : "button primary"} disabled={busy}>
        {busy ? busyLabel : submit}
      </button>
    </div>
  );
}
