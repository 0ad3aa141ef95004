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
  // Taken at the first render, before the dialog can hold focus: the button that asked for it.
  const opener = useRef(document.activeElement);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (!element.open) element.showModal();
    cancel.current?.focus();
    // The browser gives focus back on close() only while the dialog is in the document; Preact may
    // remove it first, so focus returns by hand: to the button that opened it, or to the view when
    // that button is gone (a pruned list has no Prune button left).
    const restore = () => {
      const back =
        opener.current instanceof HTMLElement && opener.current.isConnected
          ? opener.current
          : document.getElementById('main');
      back?.focus({ preventScroll: true });
    };
    return () => {
      element.close();
      restore();
      // Focus still inside the dialog when its node leaves the document falls to the body: once more
      // after that (seen under load in the images journey).
      requestAnimationFrame(() => {
        if (document.activeElement === null || document.activeElement === document.body) restore();
      });
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
