import { afterAll, beforeAll } from 'vitest';
import { startListenAgent } from '../../edge-agent/src/cli/run-listen';
import type { ListenAgent } from '../../edge-agent/src/listen/listen-agent';

/**
 * A listen-mode agent as `npm run agent -- --listen` starts it, on an ephemeral loopback port,
 * whose Docker socket does not exist: a route's own checks answer, and whatever reaches Docker
 * fails at once. Started before the calling file's tests and stopped after them; `agent()` is it.
 */
export function useDockerlessListenAgent(
  secret: string,
  /** More variables (another watcher, say). */
  env: Record<string, string> = {},
): { agent(): ListenAgent } {
  let agent: ListenAgent | undefined;
  beforeAll(async () => {
    agent = await startListenAgent(
      { command: 'listen', port: 0 },
      { env: { DD_WATCHER_LOCAL_SOCKET: '/nonexistent/docker.sock', DD_AGENT_SECRET: secret, ...env }, sink: () => {} },
    );
  });
  afterAll(async () => {
    await agent?.stop();
  });
  return {
    agent() {
      if (!agent) throw new Error('the listen agent is started in beforeAll');
      return agent;
    },
  };
}
