import { spawn } from 'node:child_process';
import type { HookResult, HookRunner } from '../../../shared/update/hooks';

const KEPT_OUTPUT = 4096;
/** After SIGTERM, the command's process group gets this long before SIGKILL. */
const KILL_GRACE_MS = 2_000;

/**
 * dd.hook.pre / dd.hook.post on Node: `/bin/sh -c <command>` on this host (the hub's for its own
 * containers, an edge agent's for the containers it runs updates of), in its own process
 * group, so a timeout or a cancel ends everything the command started. The environment is only
 * PATH and the hook's variables: the process's own (DD_* secrets among them) never reaches a hook.
 */
export function createNodeHookRunner(options: { path?: string | undefined } = {}): HookRunner {
  const path = options.path ?? process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin';
  return {
    run: (command, { env, timeoutMs, signal }) =>
      new Promise<HookResult>((resolve, reject) => {
        const child = spawn('/bin/sh', ['-c', command], {
          env: { PATH: path, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
        });
        let output = '';
        let timedOut = false;
        const keep = (chunk: Buffer) => {
          output = (output + chunk.toString('utf8')).slice(-KEPT_OUTPUT);
        };
        child.stdout.on('data', keep);
        child.stderr.on('data', keep);
        let killer: ReturnType<typeof setTimeout> | undefined;
        const stop = () => {
          if (child.pid === undefined || child.exitCode !== null) return;
          try {
            process.kill(-child.pid, 'SIGTERM');
          } catch {
            // Already gone.
          }
          killer = setTimeout(() => {
            try {
              if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
            } catch {
              // Already gone.
            }
          }, KILL_GRACE_MS);
        };
        const timer = setTimeout(() => {
          timedOut = true;
          stop();
        }, timeoutMs);
        const onAbort = () => stop();
        signal?.addEventListener('abort', onAbort, { once: true });
        if (signal?.aborted) stop();
        const finish = () => {
          clearTimeout(timer);
          if (killer) clearTimeout(killer);
          signal?.removeEventListener('abort', onAbort);
        };
        child.once('error', (error) => {
          finish();
          reject(error);
        });
        child.once('close', (code) => {
          finish();
          resolve({ exitCode: code, timedOut, output });
        });
      }),
  };
}
