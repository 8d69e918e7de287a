// The buttons every list screen has: the header's "New …" that opens its form, and the destructive ones.
import type { ComponentChildren } from "preact";

/** Opens a create form; hidden while the form is open. */
export function OpenButton({ open, onOpen, children }: { open: boolean; onOpen: () => void; children: ComponentChildren }) {
  if (open) return null;
  return (
    <button type="button" class="button primary" onClick={onOpen}>
      {children}
    </button>
  );
}

/** A destructive action (delete, release, remove), labelled with what it acts on where the text alone is not enough. */
export function DangerButton({ label, disabled, onClick, children }: { label?: string; disabled?: boolean; onClick: () => void; children: ComponentChildren }) {
  return (
    <button type="button" class="button danger-ghost" disabled={disabled} aria-label={label} onClick={onClick}>
      {children}
    </button>
  );
}

/** A table row whose only action is a destructive one. */
export function DangerCell({ label, busy, onClick, children }: { label: string; busy: boolean; onClick: () => void; children: ComponentChildren }) {
  return (
    <td class="row-actions">
      <DangerButton label={label} disabled={busy} onClick={onClick}>
        {children}
      </DangerButton>
    </td>
  );
}
