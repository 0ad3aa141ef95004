import type { AgentAck } from '../../../shared/agent-api/listen-schemas';
import { ENGINE_WATCHER_TYPES } from '../../../shared/docker/watcher-config';
import type { LogRing } from '../../../shared/logging/log-ring';
import type { Logger } from '../../../shared/logging/logger';
import type { AgentUpdates } from '../updates/agent-updates';
import { ListenHttpError } from './listen-errors';
import type { ListenState } from './listen-state';
import type { ListenWatcher } from './listen-watcher';

/** What the routes of the listen interface work with. */
export interface ListenContext {
  /** The shared secret of X-Dd-Agent-Secret (never logged). */
  secret: string;
  watchers: readonly ListenWatcher[];
  state: ListenState;
  ring: LogRing;
  logger: Logger;
  /** DD_SERVER_FEATURE_DELETE (default false): DELETE /api/containers/{id}. */
  featureDelete: boolean;
  /** DD_SERVER_FEATURE_CONTAINERACTIONS (default true): start, stop, restart. */
  featureContainerActions: boolean;
  /** The update engine and journal the edge agent runs updates with (its `container.update`). */
  updates: AgentUpdates;
  /** The dd:ack of a new event stream (http-interface §6.2). */
  ack(): AgentAck;
  /** SSE comment interval, so the hub notices a silent connection. */
  keepaliveMs: number;
}

/** The watcher of a route's `{type}/{name}`, or 404. */
export function watcherOf(context: ListenContext, type: string, name: string): ListenWatcher {
  if (!(ENGINE_WATCHER_TYPES as readonly string[]).includes(type))
    throw new ListenHttpError(404, `Unknown watcher type ${type.slice(0, 40)}`);
  const watcher = context.watchers.find((w) => w.name === name);
  // `docker` names a Podman watcher too: it speaks the Docker API, and hubs name every agent watcher so.
  const typeFits = watcher && (type === 'docker' || type === (watcher.config.type ?? 'docker'));
  if (!watcher || !typeFits) throw new ListenHttpError(404, `Unknown watcher ${type}.${name.slice(0, 80)}`);
  return watcher;
}

/** The watcher `?watcher=` names (the hub always names it), else the agent's first; 404 when none. */
export function namedOrFirstWatcher(context: ListenContext, name: string | undefined): ListenWatcher {
  const watcher = name === undefined ? context.watchers[0] : watcherOf(context, 'docker', name);
  if (!watcher) throw new ListenHttpError(404, 'This agent has no watcher');
  return watcher;
}

/**
 * The watcher that reaches a container: the one named by `?watcher=` (the hub names it), else the
 * one whose inventory holds it, else the first whose Docker knows it (a stopped container leaves
 * the inventory without WATCHALL but can still be started). 404 when none does.
 */
export async function watcherOfContainer(
  context: ListenContext,
  id: string,
  named: string | undefined,
): Promise<ListenWatcher> {
  if (named !== undefined) return watcherOf(context, 'docker', named);
  const listed = context.state.find(id);
  const holder = listed && context.watchers.find((w) => w.name === listed.watcher);
  if (holder) return holder;
  for (const watcher of context.watchers) {
    const details = await watcher.host.inspectContainer(id).catch(() => undefined);
    if (details) return watcher;
  }
  throw new ListenHttpError(404, `Unknown container ${id.slice(0, 80)}`);
}
