import type { ChildProcess } from 'node:child_process';

/** SIGTERM, then SIGKILL if the process is still there after `graceMs`; resolves once it has exited. */
export async function terminate(child: ChildProcess, exited: Promise<unknown>, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), graceMs);
  });
  const stuck = await Promise.race([exited.then(() => false), timedOut]);
  clearTimeout(timer);
  if (stuck) {
    child.kill('SIGKILL');
    await exited;
  }
}
