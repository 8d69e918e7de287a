// The buttons every list screen has: the header's "New …" that opens its form, and a row's destructive one.
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

/** A table row's destructive action (delete, release, remove), labelled with what it acts on. */
export function DangerCell({ label, busy, onClick, children }: { label: string; busy: boolean; onClick: () => void; children: ComponentChildren }) {
  return (
    <td class="row-actions">
      <button type="button" class="button danger-ghost" disabled={busy} aria-label={label} onClick={onClick}>
        {children}
      </button>
    </td>
  );
}
