import { dismissSelfUpdate, selfUpdate } from '../self-update';

const OUTCOME: Record<string, string> = {
  succeeded: 'The hub restarted on its new version and answers again',
  'rolled-back': 'The new version did not start: the hub was rolled back to the one it ran before and answers again',
  failed: 'The self-update failed; the hub answers again',
};

/** The self-update's progress (ui/src/self-update.ts), above every view. */
export function SelfUpdateBanner() {
  const view = selfUpdate.value;
  if (!view) return null;
  if (view.stage === 'restarting') {
    return (
      <div class="banner" role="status" data-self-update="restarting">
        The hub is updating itself and restarting{view.phase ? ` (${view.phase})` : ''}. This page reconnects on its
        own.
      </div>
    );
  }
  return (
    <div class="banner" role="status" data-self-update={view.status}>
      {OUTCOME[view.status] ?? `Self-update ${view.status}`}
      {view.version ? ` (version ${view.version})` : ''}.{' '}
      <button type="button" class="secondary" onClick={dismissSelfUpdate}>
        Dismiss
      </button>
    </div>
  );
}
