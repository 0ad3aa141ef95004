import { spawn } from 'node:child_process';

export interface CommandResult {
  stdout: string;
  stderr: string;
  /** The exit code; -1 when the process was ended by a signal. */
  code: number;
}

/** Runs a command to its end and collects its output; rejects only when it cannot be started. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ stdout, stderr, code: code ?? -1 }));
  });
}
