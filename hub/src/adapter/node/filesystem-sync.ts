import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * syncfs(2) of the filesystem holding a path, through a small shell that lives as long as the
 * store: Node has no binding for it, and spawning `sync -f` per batch forks the hub, which took
 * 200 ms with a 1 GiB heap. Started while the hub is small (before the stores load).
 */
export interface FilesystemSync {
  /** Resolves once everything written to the filesystem before the call is durable; rejects if it cannot say so. */
  sync(): Promise<void>;
  close(): void;
}

// `sync -f` (GNU coreutils 8.24+, BusyBox with SYNC_FANCY) is syncfs; "ok" or "fail" per line read.
const SCRIPT = 'while read -r _; do if sync -f -- "$0"; then echo ok; else echo fail; fi; done';

export function startFilesystemSync(path: string): FilesystemSync {
  const child = spawn('/bin/sh', ['-c', SCRIPT, path], { stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const output = child.stdout as unknown as { ref(): void; unref(): void };
  let dead: Error | undefined;
  const fail = (error: Error) => {
    dead ??= error;
    for (const waiter of waiting.splice(0)) waiter.reject(dead);
    output.unref();
  };
  child.on('error', (error) => fail(new Error(`filesystem sync helper: ${error.message}`)));
  child.on('exit', (code, signal) => fail(new Error(`filesystem sync helper exited (${signal ?? code})`)));
  child.stdin.on('error', (error) => fail(new Error(`filesystem sync helper: ${error.message}`)));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const waiter = waiting.shift();
    if (waiting.length === 0) output.unref();
    if (line === 'ok') waiter?.resolve();
    else waiter?.reject(new Error(`sync -f failed for ${path}`));
  });
  // The helper never keeps the process alive; a sync in flight does (its answer is awaited).
  child.unref();
  (child.stdin as unknown as { unref(): void }).unref();
  output.unref();
  return {
    sync() {
      if (dead) return Promise.reject(dead);
      return new Promise<void>((resolve, reject) => {
        waiting.push({ resolve, reject });
        output.ref();
        child.stdin.write('\n');
      });
    },
    close() {
      child.stdin.end();
      fail(new Error('filesystem sync helper closed'));
    },
  };
}
