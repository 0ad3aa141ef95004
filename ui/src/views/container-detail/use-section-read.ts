import { type Inputs, useEffect } from 'preact/hooks';
import { errorMessage } from '../../../../shared/error-message';
import { isAborted } from '../../api';

/**
 * One read of the detail page or one of its sections, started when `inputs` change and cancelled (AbortController) when
 * they change again or the section goes away: the container removed, or re-created under a new id
 * by an update or a rollback, which unmounts the sections of the old id. A cancelled read reports
 * nothing: no 404 about the old id reaches the page or its console.
 */
export function useSectionRead<T>(
  read: ((signal: AbortSignal) => Promise<T>) | undefined,
  onValue: (value: T) => void,
  /** The failure in words, and the failure itself (an ApiError carries the status). */
  onError: (message: string, failure: unknown) => void,
  inputs: Inputs,
): void {
  useEffect(() => {
    if (!read) return;
    const reading = new AbortController();
    read(reading.signal).then(
      (value) => {
        if (!reading.signal.aborted) onValue(value);
      },
      (failure: unknown) => {
        if (!reading.signal.aborted && !isAborted(failure)) onError(errorMessage(failure), failure);
      },
    );
    return () => reading.abort();
  }, inputs);
}
