import { useDockerlessListenAgent } from '../../support/dockerless-listen-agent';
import { withTimeout } from '../../support/with-timeout';
import { preview } from '../generators';

const REQUEST_TIMEOUT_MS = 10_000;

/**
 * The dockerless listen agent of ../../support/dockerless-listen-agent, plus the request every listen fuzz sends:
 * with the agent's secret, and failing the test when it hangs past REQUEST_TIMEOUT_MS.
 */
export function useListenAgentCall(secret: string): {
  listen: ReturnType<typeof useDockerlessListenAgent>;
  call: (path: string, init?: RequestInit) => Promise<Response>;
} {
  const listen = useDockerlessListenAgent(secret);
  const call = (path: string, init: RequestInit = {}) =>
    withTimeout(
      fetch(`${listen.agent().url}${path}`, { ...init, headers: { 'X-Dd-Agent-Secret': secret, ...init.headers } }),
      `${init.method ?? 'GET'} ${preview(path)}`,
      REQUEST_TIMEOUT_MS,
    );
  return { listen, call };
}
