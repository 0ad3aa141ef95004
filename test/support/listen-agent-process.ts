import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { AGENT_BUILD, REPO_ROOT } from './hub-process';

const KILL_AFTER_MS = 5_000;
const START_TIMEOUT_MS = 30_000;

export interface ListenAgentProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:port` of its listener. */
  url: string;
  port: number;
  /** Every stdout line so far (pino JSON). */
  stdout: string[];
  stderr: string[];
  exited: Promise<number | string>;
  /** Sends the signal (SIGKILL after 5 s) and resolves with the exit code or signal. */
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * `npm run agent -- --listen PORT` as a real process (`node dist/agent.mjs`, one pid),
 * resolved once it has logged that it listens. Only PATH and HOME are inherited, so the
 * caller's DD_* or DOCKER_HOST cannot change what is tested.
 */
export async function startListenAgentProcess(options: {
  port: number;
  env: Record<string, string>;
  args?: string[];
}): Promise<ListenAgentProcess> {
  const child = spawn(process.execPath, [AGENT_BUILD, '--listen', String(options.port), ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => stdout.push(line));
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => stderr.push(line));
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  // A crash of the test runner must not leave an agent holding a port.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.removeListener('exit', killOnExit));

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      clearInterval(poll);
      reject(new Error(`listen agent did not start in ${START_TIMEOUT_MS} ms: ${stderr.join('\n')}`));
    }, START_TIMEOUT_MS);
    const poll = setInterval(() => {
      for (const line of stdout) {
        if (!line.includes('listen-mode agent listening on')) continue;
        clearInterval(poll);
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
        return;
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`listen agent exited (${code}) before listening: ${stderr.join('\n')} ${stdout.join('\n')}`));
    });
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    port,
    stdout,
    stderr,
    exited,
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const escalate = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
      try {
        return await exited;
      } finally {
        clearTimeout(escalate);
      }
    },
  };
}
