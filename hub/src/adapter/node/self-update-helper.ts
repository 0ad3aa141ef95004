import { readFileSync } from 'node:fs';
import { createDockerHost } from '../../../../edge-agent/src/docker';
import type { Environment } from '../../../../shared/config/env-source';
import { errorMessage } from '../../../../shared/error-message';
import { createLogRing } from '../../../../shared/logging/log-ring';
import { createLogger } from '../../../../shared/logging/logger';
import { runUpdateOperation } from '../../../../shared/update-engine';
import { loadHubConfig } from '../../config/hub-config';
import { HELPER_OPERATION_VARIABLE } from '../../updates/self-update/helper-container-spec';
import {
  readSelfUpdate,
  type SelfUpdateRecord,
  withOperation,
  writeSelfUpdate,
} from '../../updates/self-update/self-update-record';
import { createNodeStorage } from './create-node-storage';
import { createPinoSink } from './pino-sink';

/** The argument that makes the hub's bundle run as the self-update helper (docs/updates.md "Self-update"). */
export const SELF_UPDATE_HELPER_ARGUMENT = '--self-update-helper';

const WRITE_ATTEMPTS = 3;

/**
 * A new hub starting on the same fs store sweeps the temporary files of atomic writes, and may take
 * the helper's in-flight one: such a write is simply made again.
 */
async function writeWithRetry(write: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= WRITE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}

/**
 * The helper container's whole life: the hub started it from its own image with its own
 * configuration, so the same variables open the same store and the same Docker. It swaps the hub's
 * container with the update engine (rename, create from the same spec, stop, start, health gate;
 * a failure removes the new one and restores and restarts the old), journalling every step into the
 * self-update record the hub answering afterwards reads. Answers the exit code.
 */
export async function runSelfUpdateHelper(env: Environment): Promise<number> {
  const config = loadHubConfig(env, (path) => readFileSync(path, 'utf8'));
  const logger = createLogger({
    level: config.log.level,
    ring: createLogRing(1, false),
    sink: await createPinoSink(config.log.format),
  }).child('self-update-helper');
  const operationId = env[HELPER_OPERATION_VARIABLE] ?? '';
  const { storage, close } = await createNodeStorage(config.store);
  try {
    let record = await readSelfUpdate(storage, operationId, logger);
    if (!record) {
      logger.error('no such self-update in the store', { operationId });
      return 1;
    }
    const watcher = config.watchers.find((candidate) => candidate.name === record?.operation.watcher);
    if (!watcher) {
      logger.error('the hub container’s watcher is not configured here', { watcher: record.operation.watcher });
      return 1;
    }
    const host = createDockerHost(watcher.endpoint);
    const journal = {
      async save(operation: Parameters<typeof withOperation>[1]) {
        if (!record) return;
        record = withOperation(record, operation);
        await writeWithRetry(() => writeSelfUpdate(storage, record as SelfUpdateRecord));
        logger.info('self-update step', { operationId, status: operation.status, phase: operation.phase });
      },
    };
    const settled = await runUpdateOperation(
      record.operation,
      { healthTimeoutMs: record.healthTimeoutMs },
      { host, journal, now: Date.now },
      new AbortController().signal,
    );
    await host.close();
    return settled.status === 'succeeded' ? 0 : 1;
  } catch (error) {
    logger.error('self-update helper failed', { operationId, error: errorMessage(error) });
    return 1;
  } finally {
    await close();
  }
}
