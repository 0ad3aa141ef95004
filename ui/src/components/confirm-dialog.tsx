import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

interface ConfirmDialogProps {
  title: string;
  children: ComponentChildren;
  /** The button that does it, named by what it does ("Revoke the key"). */
  action: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * A modal question before a destructive action: the browser's own `<dialog>` (focus kept inside,
 * Escape cancels), never `window.confirm`, which cannot be styled nor labelled. Focus starts on
 * Cancel, so Enter does not destroy by accident.
 */
export function ConfirmDialog({ title, children, action, busy = false, onConfirm, onCancel }: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    // The browser gives focus back on close() only while the dialog is in the document; Preact may
    // remove it first, so focus returns by hand: to the button that opened it, or to the view when
    // that button is gone (a pruned list has no Prune button left).
    const opener = document.activeElement;
    if (!element.open) element.showModal();
    cancel.current?.focus();
    return () => {
      element.close();
      const back = opener instanceof HTMLElement && opener.isConnected ? opener : document.getElementById('main');
      back?.focus({ preventScroll: true });
    };
  }, []);
  return (
    <dialog
      ref={dialog}
      class="confirm"
      aria-labelledby="confirm-title"
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id="confirm-title">{title}</h2>
      <div>{children}</div>
      <div class="actions">
        <button type="button" class="danger" disabled={busy} onClick={onConfirm}>
          {busy ? 'Working…' : action}
        </button>
        <button type="button" class="secondary" ref={cancel} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
