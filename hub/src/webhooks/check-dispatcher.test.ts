import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { containerRecord } from '../../../test/support/container-fixture';
import { createCheckDispatcher } from './check-dispatcher';

const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
const web = containerRecord({ id: '1'.repeat(64), name: 'web', watcher: 'local' });
const api = containerRecord({ id: '2'.repeat(64), name: 'api', watcher: 'local' });
const db = containerRecord({ id: '3'.repeat(64), name: 'db', watcher: 'local', agent: 'nas' });

describe('checks dispatched by registry events', () => {
  it('checks each watcher’s containers in one call, and folds what arrives meanwhile into one follow-up', async () => {
    const calls: string[][] = [];
    const gates: (() => void)[] = [];
    const dispatcher = createCheckDispatcher(async (containers) => {
      calls.push(containers.map((c) => c.name));
      await new Promise<void>((resolve) => gates.push(resolve));
    }, logger);
    expect(dispatcher.dispatch([web, api, db])).toEqual({ started: 3, queued: 0 });
    expect(calls).toEqual([['web', 'api'], ['db']]);
    // Two more events for local's containers while its check runs: one follow-up, each container once.
    expect(dispatcher.dispatch([web])).toEqual({ started: 0, queued: 1 });
    expect(dispatcher.dispatch([web, api])).toEqual({ started: 0, queued: 2 });
    for (const open of gates.splice(0)) open();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls).toEqual([['web', 'api'], ['db'], ['web', 'api']]);
    for (const open of gates.splice(0)) open();
    await dispatcher.settled();
    expect(calls).toHaveLength(3);
    expect(dispatcher.dispatch([db])).toEqual({ started: 1, queued: 0 });
    for (const open of gates.splice(0)) open();
    await dispatcher.settled();
  });

  it('a failing check does not stop the follow-up', async () => {
    let calls = 0;
    const dispatcher = createCheckDispatcher(async () => {
      calls += 1;
      throw new Error('registry down');
    }, logger);
    dispatcher.dispatch([web]);
    dispatcher.dispatch([web]);
    await dispatcher.settled();
    expect(calls).toBe(2);
  });
});
