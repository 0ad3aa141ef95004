import type { Storage } from 'unstorage';
import * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';

/**
 * Reads one record and checks it against its schema (decisions §3). A record that fails is
 * reported and treated as absent, never passed on; it is left in place for inspection.
 */
export async function readValidated<T>(
  storage: Storage,
  key: string,
  schema: v.GenericSchema<unknown, T>,
  logger: Logger,
): Promise<T | undefined> {
  const raw = await storage.getItem(key);
  if (raw === null || raw === undefined) return undefined;
  const result = v.safeParse(schema, raw);
  if (result.success) return result.output;
  logger.error('stored record failed validation; ignoring it', {
    key,
    issue: result.issues[0]?.message,
    path: v.getDotPath(result.issues[0] as v.BaseIssue<unknown>),
  });
  return undefined;
}

/**
 * Many records, read `concurrency` at a time (a hub's start reads every stored container: one read
 * after another, 200,000 files took minutes on `fs`), in the order of `keys`; a bad one is skipped.
 */
export async function readAllValidated<T>(
  storage: Storage,
  keys: readonly string[],
  schema: v.GenericSchema<unknown, T>,
  logger: Logger,
  concurrency = 32,
): Promise<{ key: string; value: T }[]> {
  const values: (T | undefined)[] = new Array(keys.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < keys.length; index = next++)
      values[index] = await readValidated(storage, keys[index] as string, schema, logger);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, keys.length) }, worker));
  return keys.flatMap((key, index) => {
    const value = values[index];
    return value === undefined ? [] : [{ key, value }];
  });
}

/**
 * Runs writes one after another. Without it two quick PATCHes could reach the driver out of
 * order and the older value would win.
 */
export function createSerialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
