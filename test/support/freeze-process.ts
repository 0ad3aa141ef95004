import { readdir, readFile } from 'node:fs/promises';

/**
 * SIGSTOP, and back only once every thread of the process has stopped. kill() only queues the
 * signal: each thread stops when it next runs, so on a busy machine a daemon's poller can still
 * answer a request sent right after the kill (seen in CI: a frozen dockerd listed its containers
 * within the refresh's deadline). A thread's state in /proc is `T` once it is stopped.
 */
export async function freezeProcess(pid: number, timeoutMs = 5_000): Promise<void> {
  process.kill(pid, 'SIGSTOP');
  const deadline = Date.now() + timeoutMs;
  while (!(await allThreadsStopped(pid))) {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not stop within ${timeoutMs} ms of SIGSTOP`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

async function allThreadsStopped(pid: number): Promise<boolean> {
  const threads = await readdir(`/proc/${pid}/task`);
  const states = await Promise.all(
    threads.map((tid) =>
      readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').then(
        // The state follows the command name, which is in parentheses and may itself hold spaces.
        (stat) => stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3),
        () => 'gone', // a thread that exited meanwhile stops nothing
      ),
    ),
  );
  return states.every((state) => state === 'T' || state === 't' || state === 'gone');
}
