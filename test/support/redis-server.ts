import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { terminate } from './terminate';

export interface RedisTestServer {
  /** `unix:///…/redis.sock`, the unix-socket form `createNodeStorage` accepts. */
  url: string;
  socketPath: string;
  stop(): Promise<void>;
}

const REDIS_SERVER = '/usr/bin/redis-server';
const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;
// sun_path is 108 bytes on Linux; a longer TMPDIR would make bind() fail with a vague error.
const MAX_SOCKET_PATH = 107;
// 7.0 logs "The server is now ready to accept connections at <socket>", 7.2+ "Ready to accept connections unix".
const READY_LINE = /ready to accept connections/i;

/**
 * Starts a throwaway redis-server that listens only on a unix socket in a fresh temp dir, so
 * parallel test files never share a port or data, and nothing is written to disk.
 */
export async function startRedisServer(): Promise<RedisTestServer> {
  if (!existsSync(REDIS_SERVER)) {
    throw new Error(`${REDIS_SERVER} not found; run \`node scripts/ensure-testbed.mjs\` to install redis-server`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'dockwatch-redis-'));
  const socketPath = join(dir, 'redis.sock');
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`redis test socket path is too long for a unix socket (${socketPath}); set a shorter TMPDIR`);
  }
  const args = [
    '--port',
    '0',
    '--unixsocket',
    socketPath,
    '--unixsocketperm',
    '700',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ];
  const child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  try {
    await waitUntilReady(child, START_TIMEOUT_MS);
    await ping(socketPath);
  } catch (error) {
    await terminate(child, exited, STOP_TIMEOUT_MS);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  const encodedPath = socketPath.split('/').map(encodeURIComponent).join('/');
  return {
    url: `unix://${encodedPath}`,
    socketPath,
    async stop() {
      await terminate(child, exited, STOP_TIMEOUT_MS);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves on redis' own "ready" log line, which it prints once every listener is bound. */
function waitUntilReady(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    let ready = false;
    const onData = (chunk: Buffer) => {
      // Kept short: only the tail is useful when start-up fails.
      output = (output + chunk.toString('utf8')).slice(-4_000);
      if (!ready && READY_LINE.test(output)) {
        ready = true;
        finish();
        resolve();
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      finish();
      reject(new Error(`redis-server exited during start-up (code ${code}, signal ${signal}):\n${output}`));
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(`redis-server was not ready within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      child.off('exit', onExit);
    };
    // Both pipes stay drained after start-up so redis never blocks on a full pipe.
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** One RESP round trip, so "ready" is proven on the socket the tests will use. */
function ping(socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    let reply = '';
    socket.setEncoding('utf8');
    socket.once('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.on('data', (chunk: string) => {
      reply += chunk;
      if (!reply.includes('\r\n')) return;
      socket.destroy();
      if (reply.startsWith('+PONG')) resolve();
      else reject(new Error(`redis-server answered PING with ${JSON.stringify(reply)}`));
    });
    socket.once('error', reject);
  });
}
