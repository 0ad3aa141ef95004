import { errorMessage } from '../../shared/error-message';
import type { ShutdownLimits } from '../../shared/update-engine';
import type { Lifecycle } from './capability';
import { composeHttp, type HubApp } from './compose-http';
import { composeCapabilities, type HubParts } from './hub-capabilities';
import type { HubInput } from './hub-options';
import { STORE_GATE } from './readiness';

export type { HubParts } from './hub-capabilities';
export type { HubInput, HubOptions } from './hub-options';

/** A composed hub: its HTTP app, its parts (for the entry, tests and benchmarks), its lifecycle. */
export interface Hub {
  app: HubApp;
  parts: HubParts;
  /** Loads stored state; /health reports 503 until it has finished. */
  start(): Promise<void>;
  /**
   * The first step of a shutdown (docs/operations.md "Shutdown"): /health answers 503, UI event
   * streams end, the update queue takes no job, and running updates get `limits` to settle.
   */
  drain(limits?: ShutdownLimits): Promise<void>;
  /** Drains (at once, unless drain() came first), then ends every capability in reverse order. */
  stop(): Promise<void>;
}

/**
 * The composition root: every capability of the hub, registered in dependency order by
 * composeCapabilities (hub-capabilities.ts), and the HTTP surface over them (compose-http.ts).
 * It performs no I/O; start() runs the capabilities' lifecycles (docs/architecture.md "The
 * capability lifecycle") around the one scheduler, stop() ends them in reverse.
 */
export function composeHub(input: HubInput): Hub {
  const capabilities = composeCapabilities(input);
  const { parts, lifecycles } = capabilities;
  const http = composeHttp(parts);
  const { config, logger, readiness, scheduler, events } = parts;
  const lastFirst = (): Lifecycle[] => [...lifecycles].reverse();

  readiness.add(STORE_GATE);
  let draining: Promise<void> | undefined;
  const drain = (limits?: ShutdownLimits): Promise<void> => {
    draining ??= (async () => {
      readiness.add('stopping');
      // Open UI streams would otherwise hold the server's close open until their clients left.
      events.closeAll();
      // What queues updates stops first, then the queue closes and running updates settle.
      for (const capability of lastFirst()) await capability.drain?.(limits);
    })();
    return draining;
  };
  return {
    app: http.app,
    parts,
    async start() {
      if (config.anonymous) {
        logger.warn('no authentication is configured: every route is open (anonymous mode)', {
          host: config.server.host,
        });
      }
      if (config.unknownVariables.length > 0) {
        logger.warn('ignoring unknown configuration variables', { variables: config.unknownVariables });
      }
      try {
        for (const capability of lifecycles) await capability.load?.();
        // The stored schedules last: jobs defined while the capabilities loaded adopt their stored next runs.
        await scheduler.load();
        readiness.markReady(STORE_GATE);
      } catch (error) {
        readiness.markFailed(STORE_GATE, errorMessage(error));
        throw error;
      }
      for (const capability of lifecycles) capability.start?.();
      for (const capability of lifecycles)
        for (const job of capability.jobs ?? []) scheduler.job(job.name, job.run, job.recurrence);
      // Every job is defined: the wake-up is armed at the earliest (one missed while down runs now).
      scheduler.start();
      for (const capability of lifecycles) await capability.resume?.();
    },
    drain,
    async stop() {
      await drain();
      for (const capability of lastFirst()) await capability.stop?.();
      await scheduler.stop();
    },
  };
}
