import { readFileSync } from 'node:fs';
import { errorMessage } from '../../../shared/error-message';
import { readKeyFile } from '../keys/key-file';
import { loadAgentEnvironment } from './agent-environment';
import { readLinkStatus } from './link-status-file';
import type { AgentCommand } from './parse-args';

const PROBE_TIMEOUT_MS = 5_000;

/**
 * `--healthcheck` (the agent image's HEALTHCHECK; docs/deploy.md). Edge mode: the key and the
 * variables are what a start would accept, and the running agent's link status file says it is
 * connected to the hub (an agent that cannot reach its hub does nothing useful). Listen mode: the
 * agent's own GET /health (http-interface §4.5) answers 200. Answers the problem, or undefined
 * when healthy.
 */
export async function checkAgentHealth(
  command: Extract<AgentCommand, { command: 'healthcheck' }>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  try {
    loadAgentEnvironment(env, (path) => readFileSync(path, 'utf8'));
    if ('port' in command) {
      const host = command.host === undefined || command.host === '0.0.0.0' ? '127.0.0.1' : command.host;
      const url = `http://${host.includes(':') ? `[${host}]` : host}:${command.port}/health`;
      const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
      await response.body?.cancel();
      return response.status === 200 ? undefined : `${url} answered ${response.status}`;
    }
    await readKeyFile(command.keyFile);
    const status = await readLinkStatus(command.keyFile);
    if (status === undefined) return 'the agent has not reached the hub yet (no link status file)';
    if (status.state !== 'connected') return `disconnected from the hub since ${new Date(status.since).toISOString()}`;
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}
