import { useState } from 'preact/hooks';
import { daysProblem } from '../../../../shared/update/policy-limits';

interface DaysFieldProps {
  id: string;
  label: string;
  initial: string;
  max: number;
  /** The button's words: it stays enabled, so a refused number is said, not silently greyed out. */
  action: string;
  disabled: boolean;
  onSubmit: (days: number) => void;
}

/**
 * A number of whole days and its button (snooze, the maturity gate). A value the API would refuse
 * (below 1, a fraction, over the limit) is not sent: the reason shows in words beside the field,
 * tied to it for screen readers, and follows the typing until the number is right.
 */
export function DaysField({ id, label, initial, max, action, disabled, onSubmit }: DaysFieldProps) {
  const [text, setText] = useState(initial);
  const [problem, setProblem] = useState<string | undefined>();
  const problemId = `${id}-problem`;
  const submit = () => {
    const found = daysProblem(text, max);
    setProblem(found);
    if (!found) onSubmit(Number(text.trim()));
  };
  return (
    <span class="inline-form">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="number"
        min={1}
        max={max}
        step={1}
        value={text}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? problemId : undefined}
        onInput={(event) => {
          const next = event.currentTarget.value;
          setText(next);
          if (problem) setProblem(daysProblem(next, max));
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter') submit();
        }}
      />
      <button type="button" class="secondary" disabled={disabled} onClick={submit}>
        {action}
      </button>
      {problem && (
        <span id={problemId} class="error field-problem" role="alert">
          {problem}
        </span>
      )}
    </span>
  );
}
