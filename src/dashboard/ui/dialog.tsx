// A modal <dialog> holding a small form (a credit, a reason): focus stays inside, Escape closes it,
// and the focus goes back to what opened it.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";

export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const returnTo = document.activeElement as HTMLElement | null;
    ref.current!.showModal();
    return () => returnTo?.focus();
  }, []);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={id} onCancel={(e) => (e.preventDefault(), onClose())}>
      <h2 id={id}>{title}</h2>
      {children}
    </dialog>
  );
}
