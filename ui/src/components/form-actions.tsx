import { ErrorText } from './error-text';

/** A form's end: its error in words, the submit button (its own words while busy) and Cancel. */
export function FormActions({
  error,
  busy,
  submit,
  submitting,
  onCancel,
}: {
  error: string | undefined;
  busy: boolean;
  submit: string;
  submitting: string;
  onCancel: () => void;
}) {
  return (
    <>
      <ErrorText message={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? submitting : submit}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </>
  );
}
