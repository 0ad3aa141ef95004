import type { ComposeFileEditor } from '../../../shared/compose';
import { composeEditorForWatcher } from '../../../shared/compose';
import { canUpdateContainers, type UpdatableDockerHost } from '../../../shared/docker/docker-host';
import type { EdgeRequest } from '../../../shared/edge/protocol';
import { errorMessage } from '../../../shared/error-message';
import type { Logger } from '../../../shared/logging/logger';
import { preHookRefusal } from '../../../shared/update/hooks';
import {
  type HealthTiming,
  isTerminal,
  recoverOperation,
  runUpdateOperation,
  type ShutdownLimits,
  type UpdateOperation,
} from '../../../shared/update-engine';
import { createComposeFileEditor } from '../compose';
import type { WatcherRuntime } from '../feed/watcher-runtime';
import { type AgentHookSettings, agentUpdateHooks } from '../hooks/agent-update-hooks';
import { EdgeRequestError } from '../requests/request-error';
import type { UpdateJournalFile } from './update-journal-file';

type UpdateRequest = Extract<EdgeRequest, { method: 'container.update' }>;
/** What an update needs of a watcher: an edge agent's and a listen-mode agent's both serve. */
export type UpdateWatcher = Pick<WatcherRuntime, 'name' | 'host' | 'config'>;

const SIGNAL_AT_ONCE: ShutdownLimits = { graceMs: 0, signalledMs: Number.POSITIVE_INFINITY };

export interface AgentUpdatesOptions {
  journal: UpdateJournalFile;
  logger: Logger;
  now?: () => number;
  timing?: Partial<HealthTiming> | undefined;
  /** Compose files of updated services (default: this host's files, shared/compose's rules). */
  composeFiles?: ComposeFileEditor | undefined;
  /** dd.hook.pre / dd.hook.post on this host: this agent's DD_HOOKS_* (off when absent). */
  hooks?: AgentHookSettings | undefined;
}

/**
 * The update operations this agent runs for its hub (docs/edge-protocol.md "Updates"): the shared
 * engine next to the agent's Docker, journalled in the agent's own file. An operation outlives the
 * session that asked for it (a dropped link must not roll an update back); every journal write is
 * told to `onChange`, which sends it as an `operation` frame when a session is open.
 */
export class AgentUpdates {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<UpdateOperation> }>();
  private stopping = false;
  onChange: ((watcher: string, operation: UpdateOperation) => void) | undefined;

  constructor(private readonly options: AgentUpdatesOptions) {}

  /** Unfinished and recently settled operations: reported on every (re)connect so the hub's record converges. */
  reportable(): UpdateOperation[] {
    return this.options.journal.all();
  }

  /** Runs (or, for a repeated request of the same operation, joins) one update; resolves settled. */
  run(watcher: UpdateWatcher, request: UpdateRequest): Promise<UpdateOperation> {
    const { operation } = request;
    const joined = this.running.get(operation.id)?.done;
    if (joined) return joined;
    const known = this.options.journal.get(operation.id);
    if (known && isTerminal(known)) return Promise.resolve(known);
    if (known) throw new EdgeRequestError('busy', `operation ${operation.id} is being recovered`);
    if (this.stopping) throw new EdgeRequestError('busy', 'the agent is stopping; nothing was changed');
    const host = watcher.host;
    if (!canUpdateContainers(host))
      throw new EdgeRequestError('unsupported', `watcher ${watcher.name} cannot update containers`);
    const controller = new AbortController();
    const done = this.execute(watcher, host, request, controller.signal).finally(() =>
      this.running.delete(operation.id),
    );
    this.running.set(operation.id, { controller, done });
    return done;
  }

  /**
   * dd.hook.pre (a failure ends it failed in prepare, nothing changed), the engine, then after a
   * success dd.hook.post (a failure is reported, never rolled back). The success is journalled at
   * once but reported with the post hook's outcome, so the hub sees one settled state, hooks included.
   */
  private async execute(
    watcher: UpdateWatcher,
    host: UpdatableDockerHost,
    request: UpdateRequest,
    signal: AbortSignal,
  ): Promise<UpdateOperation> {
    const now = () => new Date((this.options.now ?? Date.now)()).toISOString();
    let operation = request.operation;
    let hooks: Awaited<ReturnType<typeof agentUpdateHooks>>;
    try {
      hooks = await agentUpdateHooks(this.options.hooks, host, operation, this.options.logger);
    } catch (error) {
      // Its hooks unknown, the update must not run without them.
      const failed: UpdateOperation = {
        ...operation,
        status: 'failed',
        phase: 'prepare',
        lastError: `cannot read the container's dd.hook.* labels: ${errorMessage(error)}; nothing was changed`,
        updatedAt: now(),
      };
      await this.engineDeps(watcher, host).journal.save(failed);
      return failed;
    }
    const deps = this.engineDeps(watcher, host, hooks.post);
    if (hooks.pre) {
      // Shown as started while the hook runs; a stop of the agent meanwhile recovers it as failed in prepare.
      await deps.journal.save({ ...operation, status: 'in-progress', phase: 'prepare', updatedAt: now() });
      const pre = await hooks.runPre(operation, signal);
      if (pre) {
        operation = { ...operation, hooks: { pre: pre.outcome } };
        if (pre.failure !== undefined) {
          const failed: UpdateOperation = {
            ...operation,
            status: 'failed',
            phase: 'prepare',
            lastError: preHookRefusal(pre.failure),
            updatedAt: now(),
          };
          await deps.journal.save(failed);
          return failed;
        }
      }
    }
    const plan = {
      auth: request.options.auth,
      healthTimeoutMs: request.options.healthTimeoutMs,
      spec: request.options.spec,
    };
    const settled = await runUpdateOperation(operation, plan, deps, signal);
    const post = await hooks.runPost(settled);
    if (!post) return settled;
    const reported: UpdateOperation = { ...settled, hooks: { ...settled.hooks, post: post.outcome }, updatedAt: now() };
    await this.options.journal.save(reported);
    this.onChange?.(watcher.name, reported);
    return reported;
  }

  /** The hub cancelled it: it rolls back at its next phase boundary. False when it is not running. */
  cancel(operationId: string, reason: string): boolean {
    const running = this.running.get(operationId);
    running?.controller.abort(new Error(reason));
    return running !== undefined;
  }

  /** At start: settles what a stop of the agent cut short, from what its Docker has now. */
  async recover(watchers: readonly UpdateWatcher[]): Promise<void> {
    for (const operation of this.options.journal.unsettled()) {
      const watcher = watchers.find((candidate) => candidate.name === operation.watcher);
      if (!watcher || !canUpdateContainers(watcher.host)) {
        this.options.logger.warn(
          `an unfinished update waits for watcher ${operation.watcher}, which is not configured`,
        );
        continue;
      }
      this.options.logger.info(
        `recovering update ${operation.id} of ${operation.containerName} (phase ${operation.phase})`,
      );
      try {
        await recoverOperation(operation, this.engineDeps(watcher, watcher.host));
      } catch (error) {
        this.options.logger.error(`recovering update ${operation.id} failed: ${errorMessage(error)}`);
      }
    }
  }

  /**
   * The agent's shutdown (docs/edge-protocol.md "Disconnects"): no new update starts; running ones
   * get `graceMs` to settle on their own, then are signalled (they roll back at their next phase
   * boundary) and get `signalledMs` more. What still runs then is left as journalled: the next start
   * recovers it. Without limits, running operations are signalled at once and waited for.
   */
  async stop(reason: string, limits: ShutdownLimits = SIGNAL_AT_ONCE): Promise<void> {
    this.stopping = true;
    await this.runningEnd(limits.graceMs);
    for (const { controller } of this.running.values()) controller.abort(new Error(reason));
    await this.runningEnd(limits.signalledMs);
    for (const id of this.running.keys()) {
      const operation = this.options.journal.get(id);
      this.options.logger.warn(
        `update ${id} of ${operation?.containerName} is left in phase ${operation?.phase} for recovery at the next start`,
      );
    }
    await this.options.journal.flush();
  }

  private async runningEnd(ms: number): Promise<void> {
    if (this.running.size === 0 || ms <= 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ended = Promise.allSettled([...this.running.values()].map((entry) => entry.done));
    // setTimeout takes Infinity as 1 ms: an unbounded wait must not race a timer at all.
    if (!Number.isFinite(ms)) {
      await ended;
      return;
    }
    await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /** `holdSuccess`: a success is journalled but not reported yet (its post hook's outcome goes with it). */
  private engineDeps(
    watcher: UpdateWatcher,
    host: Parameters<typeof recoverOperation>[1]['host'],
    holdSuccess = false,
  ) {
    const { journal } = this.options;
    return {
      host,
      now: this.options.now ?? Date.now,
      timing: this.options.timing,
      composeFiles: composeEditorForWatcher(this.options.composeFiles ?? createComposeFileEditor(), watcher.config),
      journal: {
        save: async (operation: UpdateOperation) => {
          await journal.save(operation);
          if (!(holdSuccess && operation.status === 'succeeded')) this.onChange?.(watcher.name, operation);
        },
      },
    };
  }
}
