import { useState } from 'preact/hooks';
import { errorMessage } from '../../shared/error-message';

/** What a view needs of an action a person starts: which one runs, and what went wrong last. */
export interface Action<TKey extends string> {
  /** The action running now, by the key it was started with; undefined when none is. */
  running: TKey | undefined;
  /** Whether any action runs (buttons are disabled meanwhile). */
  busy: boolean;
  /** The last failure, in the hub's words (ApiError) or the thrown value's. */
  error: string | undefined;
  setError(message: string | undefined): void;
  /**
   * Runs `work` with `running` set and the previous error cleared. A failure becomes `error` rather
   * than a rejection, so a click handler may ignore the promise; it resolves to whether work succeeded.
   */
  run(work: () => Promise<unknown>, key?: TKey): Promise<boolean>;
}

/**
 * The busy/error block every view repeated: one action at a time per hook, its failure shown in
 * words beside the control (ErrorText), the controls disabled while it runs.
 */
export function useAction<TKey extends string = 'run'>(): Action<TKey> {
  const [running, setRunning] = useState<TKey | undefined>();
  const [error, setError] = useState<string | undefined>();
  async function run(work: () => Promise<unknown>, key = 'run' as TKey): Promise<boolean> {
    setRunning(key);
    setError(undefined);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(errorMessage(failure));
      return false;
    } finally {
      setRunning(undefined);
    }
  }
  return { running, busy: running !== undefined, error, setError, run };
}
