import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { AGENT_BUILD, REPO_ROOT } from './hub-process';

const KILL_AFTER_MS = 5_000;

/** One pino line of the agent (`time` is Unix ms). */
export interface AgentLogLine {
  level: number;
  time: number;
  component: string;
  msg: string;
}

export interface AgentProcess {
  child: ChildProcess;
  /** Every stdout line so far, parsed (non-JSON lines are kept as msg of level 0). */
  logs: AgentLogLine[];
  stderr: string[];
  /** Resolves with the exit code, or the signal name when it was killed. */
  exited: Promise<number | string>;
  /** Resolves with the first log line from index `from` on that matches. */
  waitForLog(match: (line: AgentLogLine) => boolean, timeoutMs?: number, from?: number): Promise<AgentLogLine>;
  /** Sends the signal (SIGKILL after 5 s if it is still there) and resolves with the exit code or signal. */
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Only PATH and HOME are inherited, so the caller's DD_* or DOCKER_HOST cannot change what is tested. */
function baseEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env };
}

/** `npm run agent -- keygen --key FILE --json`, as a real process; the printed registration. */
export async function agentKeygen(keyFile: string, name: string): Promise<{ publicKey: string; keyId: string }> {
  const child = spawn(process.execPath, [AGENT_BUILD, 'keygen', '--key', keyFile, '--name', name, '--json'], {
    cwd: REPO_ROOT,
    env: baseEnv({}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`agent keygen exited ${code}: ${stderr}`);
  return JSON.parse(stdout) as { publicKey: string; keyId: string };
}

/** The agent as `npm run agent -- --hub URL --key FILE --name NAME` runs it, as `node dist/agent.mjs` (one pid). */
export function spawnAgent(options: {
  hubUrl: string;
  keyFile: string;
  name: string;
  env?: Record<string, string>;
}): AgentProcess {
  const child = spawn(
    process.execPath,
    [AGENT_BUILD, '--hub', options.hubUrl, '--key', options.keyFile, '--name', options.name],
    { cwd: REPO_ROOT, env: baseEnv(options.env ?? {}), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const logs: AgentLogLine[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line) as AgentLogLine);
    } catch {
      logs.push({ level: 0, time: Date.now(), component: '', msg: line });
    }
    for (const wake of waiters) wake();
  });
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => stderr.push(line));
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  // A crash of the test runner must not leave an agent dialling a port that may be reused.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => {
    process.removeListener('exit', killOnExit);
    for (const wake of waiters) wake();
  });

  return {
    child,
    logs,
    stderr,
    exited,
    waitForLog(match, timeoutMs = 15_000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = logs.slice(from).find(match);
          if (found) {
            cleanup();
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            cleanup();
            reject(new Error(`agent ${options.name} exited before the log line; stderr: ${stderr.join('\n')}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`agent ${options.name}: no matching log line within ${timeoutMs} ms; last: ${logs.at(-1)?.msg}`),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
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

/** The agent's "signed in" line: component edge.link, "connected to ...". */
export const signedIn = (line: AgentLogLine): boolean =>
  line.component === 'edge.link' && line.msg.startsWith('connected to');

/** The agent's line for a session closed with this code. */
export const closedWith =
  (code: number) =>
  (line: AgentLogLine): boolean =>
    line.component === 'edge.link' && line.msg.startsWith(`connection closed with ${code} `);
