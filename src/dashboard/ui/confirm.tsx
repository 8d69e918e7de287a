// Asks before a destructive action, in a modal <dialog> (focus stays inside; Escape cancels).
import { useEffect, useRef, useState } from "preact/hooks";

export interface ConfirmRequest {
  title: string;
  message: string;
  /** The button that goes ahead, e.g. "Revoke key". */
  action: string;
}

export function useConfirm() {
  const [request, setRequest] = useState<(ConfirmRequest & { resolve: (ok: boolean) => void }) | null>(null);
  const ask = (what: ConfirmRequest) => new Promise<boolean>((resolve) => setRequest({ ...what, resolve }));
  const close = (ok: boolean) => {
    request?.resolve(ok);
    setRequest(null);
  };
  const dialog = request ? <ConfirmDialog request={request} onClose={close} /> : null;
  return { ask, dialog };
}

function ConfirmDialog({ request, onClose }: { request: ConfirmRequest; onClose: (ok: boolean) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current!;
    const returnTo = document.activeElement as HTMLElement | null;
    dialog.showModal();
    return () => returnTo?.focus();
  }, []);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="confirm-title" aria-describedby="confirm-message" onCancel={(e) => (e.preventDefault(), onClose(false))}>
      <h2 id="confirm-title">{request.title}</h2>
      <p id="confirm-message">{request.message}</p>
      <div class="actions">
        <button type="button" class="button secondary" autofocus onClick={() => onClose(false)}>
          Cancel
        </button>
        <button type="button" class="button danger" onClick={() => onClose(true)}>
          {request.action}
        </button>
      </div>
    </dialog>
  );
}
