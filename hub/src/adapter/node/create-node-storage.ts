import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Driver, Storage } from 'unstorage';
import { createStorage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import type { RedisOptions } from 'unstorage/drivers/redis';
import { errorMessage } from '../../../../shared/error-message';
import { scopeClearToBase } from '../../store/scope-clear-to-base';
import { startFilesystemSync } from './filesystem-sync';
import { fsAtomicDriver, sweepTempFiles } from './fs-atomic-driver';

export interface NodeStorageOptions {
  driver: 'fs' | 'memory' | 'redis';
  /** DD_STORE_PATH; used by `fs` only. */
  path: string;
  /** DD_STORE_URL; used by `redis` only. May hold a password, so it is never logged or echoed. */
  url: string | undefined;
}

export interface NodeStorage {
  storage: Storage;
  /** Waits for in-flight fs writes, closes the redis connection. */
  close(): Promise<void>;
}

const REDIS_START_TIMEOUT_MS = 5_000;

/** Opens the store chosen by DD_STORE_DRIVER (decisions §3), failing at start rather than at first use. */
export async function createNodeStorage(options: NodeStorageOptions): Promise<NodeStorage> {
  const storage = createStorage({ driver: await openDriver(options) });
  scopeClearToBase(storage);
  return { storage, close: () => storage.dispose() };
}

async function openDriver(options: NodeStorageOptions): Promise<Driver> {
  switch (options.driver) {
    case 'memory':
      return memoryDriver();
    case 'fs':
      return openFsDriver(options.path);
    case 'redis':
      return openRedisDriver(options.url);
  }
}

async function openFsDriver(path: string): Promise<Driver> {
  const base = resolve(path);
  try {
    await mkdir(base, { recursive: true });
    await sweepTempFiles(base);
  } catch (error) {
    throw new Error(`store.fs: cannot use DD_STORE_PATH ${JSON.stringify(base)}`, { cause: error });
  }
  // One syncfs for the record files of many batches instead of an fsync each (fs-atomic-driver.ts).
  const filesystem = startFilesystemSync(base);
  const driver = fsAtomicDriver({ base, syncFilesystem: () => filesystem.sync() });
  const dispose = driver.dispose;
  return {
    ...driver,
    async dispose() {
      await dispose?.();
      filesystem.close();
    },
  };
}

async function openRedisDriver(url: string | undefined): Promise<Driver> {
  if (url === undefined) throw new Error('store.redis: DD_STORE_URL is required');
  // Loaded on demand so fs and memory users never load ioredis.
  const { default: redisDriver } = await import('unstorage/drivers/redis');
  const driver = redisDriver(redisConnectionOptions(url));
  const client = driver.getInstance?.();
  if (client === undefined) throw new Error('store.redis: the unstorage redis driver exposes no client');
  try {
    await answersPing(client, REDIS_START_TIMEOUT_MS);
  } catch (error) {
    client.disconnect();
    const reason = errorMessage(error);
    throw new Error(`store.redis: cannot reach the server named by DD_STORE_URL: ${reason}`, { cause: error });
  }
  return driver;
}

/**
 * Accepts `redis://` and `rediss://` as ioredis does, and `unix:///absolute/path/redis.sock` for a
 * unix socket (query parameters `db`, `username` and `password`, the form ioredis itself parses).
 * Parsed here so a malformed URL fails with a message that does not repeat it.
 */
export function redisConnectionOptions(url: string): RedisOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('store.redis: DD_STORE_URL is not a valid URL');
  }
  if (parsed.protocol === 'redis:' || parsed.protocol === 'rediss:') return { url };
  if (parsed.protocol !== 'unix:') {
    throw new Error(
      `store.redis: DD_STORE_URL must start with redis://, rediss:// or unix:// (got ${parsed.protocol}//)`,
    );
  }
  if (parsed.host !== '' || parsed.pathname.length < 2) {
    throw new Error(
      'store.redis: a unix DD_STORE_URL needs an absolute socket path, as in unix:///run/redis/redis.sock',
    );
  }
  const options: RedisOptions = { path: decodeURIComponent(parsed.pathname) };
  const db = parsed.searchParams.get('db');
  if (db !== null) {
    if (!/^\d+$/.test(db)) throw new Error('store.redis: the db parameter of DD_STORE_URL must be a whole number');
    options.db = Number(db);
  }
  const username = parsed.searchParams.get('username');
  if (username !== null) options.username = username;
  const password = parsed.searchParams.get('password');
  if (password !== null) options.password = password;
  return options;
}

interface PingableClient {
  ping(): Promise<string>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
}

/** ioredis retries forever by default; a bad URL must stop the start-up instead. */
async function answersPing(client: PingableClient, timeoutMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onError: (error: Error) => void = () => undefined;
  const failure = new Promise<never>((_, reject) => {
    onError = reject;
    timer = setTimeout(() => reject(new Error(`no reply within ${timeoutMs} ms`)), timeoutMs);
  });
  client.on('error', onError);
  const pong = client.ping();
  // Whichever side loses the race settles later; it must not surface as an unhandled rejection.
  pong.catch(() => undefined);
  try {
    await Promise.race([pong, failure]);
  } finally {
    clearTimeout(timer);
    client.off('error', onError);
  }
}
