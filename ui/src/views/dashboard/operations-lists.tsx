import { Fragment } from 'preact';
import type { Agent } from '../../api';
import { OperationOutcome, UpdateStepper } from '../../components/update-stepper';
import { relative, when } from '../../format-time';
import type { Operation } from '../../state';
import { isSettled } from '../../update-steps';
import { containerHref } from './container-links';

/** Updates and rollbacks running now, each followed step by step (they outlive the re-created container's record). */
export function RunningOperations({ running }: { running: Operation[] }) {
  if (running.length === 0) return null;
  return (
    <div class="running-operations">
      {running.map((operation) => (
        <Fragment key={operation.operationId}>
          <UpdateStepper operation={operation} headingLevel={3} />
          <a href={containerHref(operation.containerName, operation.agent ?? undefined)} class="hint">
            Open {operation.containerName}
          </a>
        </Fragment>
      ))}
    </div>
  );
}

/** A failed update: from this page's live events (with its reason), or from the audit's recent status. */
export interface Failure {
  name: string;
  operation?: Operation | undefined;
}

/** What went wrong, above the pending updates: failed updates and agents that lost their connection. */
export function Problems({ failures, disconnected }: { failures: Failure[]; disconnected: readonly Agent[] }) {
  if (failures.length === 0 && disconnected.length === 0) return null;
  return (
    <ul class="plain problems">
      {failures.map((failure) => (
        <li key={failure.operation?.operationId ?? failure.name} class="problem" data-failed={failure.name}>
          <span class="badge failed">failed</span>{' '}
          <a href={containerHref(failure.name, failure.operation?.agent ?? undefined)} class="break">
            {failure.operation && isSettled(failure.operation.status) ? (
              <OperationOutcome operation={failure.operation} />
            ) : (
              `The last update of ${failure.name} failed`
            )}
          </a>
          {failure.operation?.error && <span class="hint break"> {failure.operation.error}</span>}
        </li>
      ))}
      {disconnected.map((agent) => (
        <li key={agent.name} class="problem" data-agent={agent.name}>
          <span class="badge failed">offline</span> The agent <a href="/agents">{agent.name}</a> is disconnected
          <span class="hint" title={when(agent.lastSeen)}>
            {' '}
            (last seen {relative(agent.lastSeen)})
          </span>
          : its containers are not checked or updated until it is back.
        </li>
      ))}
    </ul>
  );
}

/** Operations of this visit that ended well: "Updated web to 2.0.0 in 2.6 s", each a link to its container. */
export function FinishedOperations({ finished }: { finished: Operation[] }) {
  if (finished.length === 0) return null;
  return (
    <ul class="plain finished-operations">
      {finished.map((operation) => (
        <li key={operation.operationId} data-finished={operation.containerName}>
          <span class="badge updated">done</span>{' '}
          <a href={containerHref(operation.containerName, operation.agent ?? undefined)}>
            <OperationOutcome operation={operation} />
          </a>
        </li>
      ))}
    </ul>
  );
}
