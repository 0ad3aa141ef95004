import { useEffect, useState } from 'preact/hooks';
import type { Container } from '../api';
import { type Operation, operationKey, operations } from '../state';
import { isRollingBack, isSettled, outcomeOf, stepsOf } from '../update-steps';
import { detailApi, type OperationView } from '../views/container-detail/detail-api';

/** The operation of a container, as the live store keeps it: by identity, never by name alone. */
export function operationOf(c: Pick<Container, 'agent' | 'watcher' | 'name'>): Operation | undefined {
  return operations.value.get(operationKey(c));
}

/**
 * The operation's record (GET /update-operations/{id}): its kind, versions and timestamps, which
 * the live events do not carry. Read when it starts and again once it settles (for its duration).
 */
function useOperationView(operation: Operation): OperationView | undefined {
  const [view, setView] = useState<OperationView | undefined>();
  const settled = isSettled(operation.status);
  useEffect(() => {
    let current = true;
    detailApi.operation(operation.operationId).then(
      (answer) => current && setView(answer),
      // The steps show without it; only the versions and the time are missing then.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [operation.operationId, settled]);
  return view?.id === operation.operationId ? view : undefined;
}

/** Seconds since `since`, ticking while `running`. */
function useElapsed(since: string | undefined, running: boolean): number | undefined {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [running]);
  const start = since ? Date.parse(since) : Number.NaN;
  return Number.isNaN(start) ? undefined : Math.max(now - start, 0);
}

/**
 * An update or rollback as a person follows it: plain steps with the current one marked, the time
 * so far, and once settled a sentence naming what happened ("Updated web to 2.0.0 in 2.6 s").
 * `onCancel` is offered while it runs, never during a rollback (a rollback is not cancelled).
 */
export function UpdateStepper({
  operation,
  onCancel,
  cancelling,
  headingLevel = 2,
}: {
  operation: Operation;
  onCancel?: (() => void) | undefined;
  cancelling?: boolean;
  headingLevel?: 2 | 3;
}) {
  const view = useOperationView(operation);
  const settled = isSettled(operation.status);
  const elapsed = useElapsed(view?.createdAt, !settled);
  const progress = {
    status: operation.status,
    phase: operation.phase,
    kind: view?.kind,
    containerName: operation.containerName,
    fromVersion: view?.fromVersion,
    toVersion: view?.toVersion,
    durationMs: view && settled ? Date.parse(view.updatedAt) - Date.parse(view.createdAt) : undefined,
  };
  const rollbackAt = operation.phases.indexOf('rollback-started');
  const steps = stepsOf(progress, rollbackAt > 0 ? operation.phases[rollbackAt - 1] : undefined);
  const outcome = outcomeOf(progress);
  const rollingBack = isRollingBack(progress);
  const what = view?.kind === 'rollback' ? 'Rolling back' : 'Updating';
  const title =
    outcome ??
    `${rollingBack && view?.kind !== 'rollback' ? 'Rolling back' : what} ${operation.containerName}${view?.toVersion && !rollingBack ? ` to ${view.toVersion}` : ''}`;
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const current = steps.findIndex((step) => step.state === 'current');
  const failed = operation.status !== 'succeeded' && settled;
  const headingId = `operation-${operation.operationId}`;
  return (
    <section
      class={`card stepper-card${failed ? ' failed' : ''}`}
      aria-labelledby={headingId}
      data-operation={operation.status}
    >
      <Heading id={headingId} class="break" aria-live="polite">
        {title}
      </Heading>
      <ol class="stepper">
        {steps.map((step) => (
          <li key={step.label} data-state={step.state} aria-current={step.state === 'current' ? 'step' : undefined}>
            <span class="step-mark" aria-hidden="true" />
            {step.label}
            <span class="visually-hidden">
              {step.state === 'done' ? ' (done)' : step.state === 'failed' ? ' (failed)' : ''}
            </span>
          </li>
        ))}
      </ol>
      {!settled && (
        <p class="hint" aria-live="polite">
          {current >= 0 && `Step ${current + 1} of ${steps.length}`}
          {operation.status === 'queued' && `: position ${operation.queuePosition} of ${operation.queueTotal}`}
          {elapsed !== undefined && ` · ${Math.round(elapsed / 1000)} s so far`}
        </p>
      )}
      {operation.error && <p class="error break">{operation.error}</p>}
      {!settled && !rollingBack && onCancel && (
        <div class="actions">
          <button type="button" class="secondary" disabled={cancelling} onClick={onCancel}>
            {cancelling ? 'Cancelling…' : 'Cancel the update'}
          </button>
        </div>
      )}
    </section>
  );
}

/** The sentence of a settled operation ("Updated web to 2.0.0 in 2.6 s"), for lists. */
export function OperationOutcome({ operation }: { operation: Operation }) {
  const view = useOperationView(operation);
  const sentence = outcomeOf({
    status: operation.status,
    phase: operation.phase,
    kind: view?.kind,
    containerName: operation.containerName,
    fromVersion: view?.fromVersion,
    toVersion: view?.toVersion,
    durationMs: view ? Date.parse(view.updatedAt) - Date.parse(view.createdAt) : undefined,
  });
  return <>{sentence}</>;
}
