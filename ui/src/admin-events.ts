// What the live stream says of rollouts and group policies (live.ts), kept for the views that show
// them: a view opened after an event still sees the newest record, and one open sees it at once.
import { signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import type { Rollout } from '../../shared/schemas/rollout';
import { stream } from './state';

/** The newest record of each rollout the stream announced (`dd:rollout-started`, `dd:rollout-updated`). */
export const rolloutsSeen = signal<ReadonlyMap<string, Rollout>>(new Map());
/** Moves at every `dd:group-policy-updated`: the policies view reloads on it. */
export const groupPoliciesChanged = signal(0);

export function rolloutChanged(rollout: Rollout): void {
  const held = rolloutsSeen.value.get(rollout.id);
  if (held && held.updatedAt > rollout.updatedAt) return;
  rolloutsSeen.value = new Map(rolloutsSeen.value).set(rollout.id, rollout);
}

export function groupPolicyChanged(): void {
  groupPoliciesChanged.value += 1;
}

/**
 * Runs `reload` when the stream is back after it was lost: the events of the gap (and of a hub that
 * restarted) were missed, so a view that follows them reads its list again.
 */
export function useReloadOnReconnect(reload: () => unknown): void {
  const lost = useRef(false);
  const state = stream.value;
  useEffect(() => {
    if (state === 'lost') lost.current = true;
    else if (state === 'open' && lost.current) {
      lost.current = false;
      reload();
    }
  }, [state]);
}

/** After a form folds away, focus goes back to the button that opens it (rendered again by then). */
export function focusOpener(id: string): void {
  requestAnimationFrame(() => document.getElementById(id)?.focus({ preventScroll: true }));
}
