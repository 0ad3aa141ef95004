// An update operation as a person follows it (issue 28 item 4): plain steps instead of the engine's
// phase names, and one sentence for the outcome. Pure, so it is tested without a browser.

export type StepState = 'done' | 'current' | 'pending' | 'failed';
export interface Step {
  label: string;
  state: StepState;
}

/** What the operation said last: its status and phase (http-interface §2.6), and what the hub said of it. */
export interface OperationProgress {
  status: string;
  phase: string;
  kind?: 'update' | 'rollback' | undefined;
  containerName: string;
  fromVersion?: string | undefined;
  toVersion?: string | undefined;
  durationMs?: number | undefined;
  error?: string | undefined;
}

/**
 * The steps of the sequence, each with the phase that starts it: a phase is saved once its work is
 * done (`renamed` means the old container has its temporary name), so it is the *next* step that
 * runs then. The rename is part of creating the new container: nobody needs to see it.
 */
const STEPS: readonly { label: string; startsAt: readonly string[] }[] = [
  { label: 'Pulling the image', startsAt: ['prepare'] },
  { label: 'Creating the new container', startsAt: ['renamed'] },
  { label: 'Stopping the old container', startsAt: ['new-created'] },
  { label: 'Starting the new one', startsAt: ['old-stopped'] },
  { label: 'Health check', startsAt: ['new-started', 'health-gate'] },
];
const SEQUENCE = [
  'prepare',
  'renamed',
  'new-created',
  'old-stopped',
  'new-started',
  'health-gate',
  'health-gate-passed',
];

const SETTLED = new Set(['succeeded', 'rolled-back', 'failed']);
export const isSettled = (status: string): boolean => SETTLED.has(status);
/** A rollback under way, automatic or asked for: it cannot be cancelled. */
export const isRollingBack = (progress: Pick<OperationProgress, 'status' | 'phase' | 'kind'>): boolean =>
  !isSettled(progress.status) && (progress.phase === 'rollback-started' || progress.kind === 'rollback');

/** Index of the step running at `phase` (the last one for health-gate-passed: it is about to end). */
function runningStep(phase: string): number {
  const at = SEQUENCE.indexOf(phase);
  if (at < 0) return -1;
  let index = 0;
  STEPS.forEach((step, i) => {
    if (step.startsAt.some((start) => SEQUENCE.indexOf(start) <= at)) index = i;
  });
  return phase === 'health-gate-passed' ? STEPS.length : index;
}

/**
 * The steps with their state, and the last one: "Done", "Rolled back" (or "Rolling back"),
 * "Failed". `lastPhase` is the phase before a rollback began, when known, so the step that failed is marked.
 */
export function stepsOf(progress: OperationProgress, lastPhase?: string): Step[] {
  const { status, phase } = progress;
  const rollback = phase === 'rollback-started' || phase === 'rolled-back' || phase === 'rollback-failed';
  const reached = rollback ? runningStep(lastPhase ?? '') : runningStep(phase);
  const steps: Step[] = STEPS.map((step, index) => {
    if (status === 'succeeded') return { label: step.label, state: 'done' };
    if (index < reached) return { label: step.label, state: 'done' };
    if (index === reached) {
      const failedHere = rollback || status === 'failed';
      return { label: step.label, state: failedHere ? 'failed' : 'current' };
    }
    return { label: step.label, state: 'pending' };
  });
  if (status === 'queued') return [{ label: 'Waiting in the queue', state: 'current' }, ...steps];
  if (status === 'succeeded') steps.push({ label: 'Done', state: 'done' });
  else if (phase === 'rollback-started') steps.push({ label: 'Rolling back', state: 'current' });
  else if (phase === 'rolled-back') steps.push({ label: 'Rolled back', state: 'done' });
  else if (phase === 'rollback-failed') steps.push({ label: 'Rollback failed', state: 'failed' });
  else if (status === 'failed') steps.push({ label: 'Failed', state: 'failed' });
  else steps.push({ label: 'Done', state: 'pending' });
  return steps;
}

/** "2.6 s", "1 min 5 s". */
export function duration(ms: number): string {
  if (ms < 60_000) return `${(Math.max(ms, 0) / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * The sentence of a settled operation: "Updated web to 2.0.0 in 2.6 s", "Rolled back web to 1.0.0",
 * "The update of web to 2.0.0 failed; nothing was changed". Undefined while it runs.
 */
export function outcomeOf(progress: OperationProgress): string | undefined {
  const { status, containerName: name, fromVersion: from, toVersion: to } = progress;
  if (!isSettled(status)) return undefined;
  const took = progress.durationMs === undefined ? '' : ` in ${duration(progress.durationMs)}`;
  const rollback = progress.kind === 'rollback';
  if (status === 'succeeded') {
    if (rollback) {
      const verb = to && from && backupDirection(to, from) === 'forward' ? 'Returned' : 'Rolled back';
      return `${verb} ${name}${to ? ` to ${to}` : ''}${took}`;
    }
    return `Updated ${name}${to ? ` to ${to}` : ''}${took}`;
  }
  if (status === 'rolled-back') {
    const back = from ? ` to ${from}` : '';
    return rollback
      ? `The rollback of ${name} failed; it runs ${from ?? 'its previous version'} again`
      : `The update of ${name}${to ? ` to ${to}` : ''} did not work: rolled back ${name}${back}`;
  }
  if (progress.phase === 'prepare') {
    return `The ${rollback ? 'rollback' : 'update'} of ${name}${to ? ` to ${to}` : ''} failed before anything was changed`;
  }
  return `The ${rollback ? 'rollback' : 'update'} of ${name}${to ? ` to ${to}` : ''} failed, and so did going back: the old container is kept`;
}

/** Numeric parts of a version (`v1.10.2-rc1` → [1, 10, 2]); undefined when it has none. */
function numbersOf(version: string): number[] | undefined {
  const match = /^v?(\d+(?:\.\d+)*)/.exec(version);
  return match?.[1]?.split('.').map(Number);
}

/**
 * Which way a backup moves the container: `back` to an older version, `forward` to a newer one
 * (a backup kept before a rollback), `same` when the versions do not tell (a digest update, `latest`).
 */
export function backupDirection(backupTag: string, runningTag: string): 'back' | 'forward' | 'same' {
  const a = numbersOf(backupTag);
  const b = numbersOf(runningTag);
  if (!a || !b || backupTag === runningTag) return 'same';
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference > 0 ? 'forward' : 'back';
  }
  return 'same';
}
