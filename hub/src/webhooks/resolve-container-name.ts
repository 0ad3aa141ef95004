import type { Container } from '../../../shared/schemas/container';
import { LOCAL_AGENT } from '../../../shared/update/update-clock';
import { HttpError } from '../http/http-error';
import { clip } from '../http/route-group';

export interface NameSelector {
  /** An agent's name, or `__local__` for the hub's own containers. */
  agent?: string | undefined;
  watcher?: string | undefined;
}

const where = (container: Container) => `${container.agent ?? LOCAL_AGENT}/${container.watcher}`;

/**
 * The one container a webhook names (http-interface §4.11): by Docker name, narrowed by `agent` and
 * `watcher`. None: 404. Several (one name on several hosts): 409, listing the agent/watcher
 * pairs so the caller can add the parameters that pick one.
 */
export function resolveContainerName(all: readonly Container[], name: string, selector: NameSelector): Container {
  const candidates = all.filter(
    (container) =>
      container.name === name &&
      (selector.agent === undefined || (container.agent ?? LOCAL_AGENT) === selector.agent) &&
      (selector.watcher === undefined || container.watcher === selector.watcher),
  );
  const [only] = candidates;
  if (only && candidates.length === 1) return only;
  const narrowed = {
    ...(selector.agent !== undefined && { agent: selector.agent }),
    ...(selector.watcher !== undefined && { watcher: selector.watcher }),
  };
  if (!only) throw new HttpError(404, `No container named ${clip(name)}`, { containerName: clip(name), ...narrowed });
  const sorted = [...candidates].sort((a, b) => where(a).localeCompare(where(b)));
  throw new HttpError(
    409,
    `The container name ${clip(name)} is ambiguous: it exists on ${sorted.map(where).join(', ')} (agent/watcher); add ?agent= (or __local__) and ?watcher= to pick one`,
    {
      containerName: clip(name),
      candidates: sorted.map((container) => ({ agent: container.agent ?? LOCAL_AGENT, watcher: container.watcher })),
    },
  );
}
