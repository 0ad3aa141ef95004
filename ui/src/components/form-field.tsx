import type { ComponentChildren } from 'preact';
import './form-field.css';

interface FormFieldProps {
  /** The control's id; its hint and problem take it as prefix. */
  id: string;
  label: string;
  hint?: string | undefined;
  problem: string | undefined;
  /** The control, given the attributes that tie it to its label, hint and problem. */
  children: (attributes: Record<string, unknown>) => ComponentChildren;
}

/**
 * A labelled control whose problem, in words, sits beside it (issue 28: form errors beside the
 * field, never a greyed-out button), tied to it by aria-describedby and aria-invalid.
 */
export function FormField({ id, label, hint, problem, children }: FormFieldProps) {
  const described = [problem && `${id}-problem`, hint && `${id}-hint`].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children({
        id,
        'aria-invalid': problem ? true : undefined,
        'aria-describedby': described || undefined,
      })}
      {hint && (
        <span id={`${id}-hint`} class="hint">
          {hint}
        </span>
      )}
      {problem && (
        <span id={`${id}-problem`} class="error field-problem">
          {problem}
        </span>
      )}
    </div>
  );
}
