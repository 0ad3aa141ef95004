import type { DockerHost } from '../docker/docker-host';
import { UpdateStepError } from './update-step-error';

export interface HealthTiming {
  /** How often the new container is inspected while waiting. */
  pollMs: number;
  /** Without a healthcheck: how long the new container must keep running after its start. */
  startSettleMs: number;
}

export const DEFAULT_HEALTH_TIMING: HealthTiming = { pollMs: 250, startSettleMs: 1_000 };

/** A delay that ends early (and throws the abort reason) when the signal aborts. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const exited = (exitCode: number | undefined) => (exitCode === undefined ? '' : ` (exit code ${exitCode})`);

/**
 * Right after the start: whether the new container has a healthcheck (the health gate follows),
 * or, without one, that it is still running a moment later: an image that exits at once fails here.
 */
export async function checkStarted(
  host: DockerHost,
  id: string,
  timing: HealthTiming,
  signal: AbortSignal,
): Promise<'gate' | 'running'> {
  const started = await host.inspectContainer(id);
  if (!started) throw new UpdateStepError('the new container disappeared after its start');
  if (started.health) return 'gate';
  await delay(timing.startSettleMs, signal);
  const settled = await host.inspectContainer(id);
  if (!settled) throw new UpdateStepError('the new container disappeared after its start');
  if (settled.state !== 'running' || settled.restartCount > 0) {
    throw new UpdateStepError(`the new container stopped right after its start${exited(settled.exitCode)}`);
  }
  return 'running';
}

/** The health gate: healthy within the timeout, or a failure (unhealthy, exited, restarted, timed out). */
export async function waitHealthy(
  host: DockerHost,
  id: string,
  timeoutMs: number,
  timing: HealthTiming,
  signal: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const details = await host.inspectContainer(id);
    if (!details) throw new UpdateStepError('the new container disappeared during the health gate');
    if (details.state !== 'running' || details.restartCount > 0) {
      throw new UpdateStepError(`the new container stopped during the health gate${exited(details.exitCode)}`);
    }
    if (details.health === 'healthy') return;
    if (details.health === 'unhealthy') throw new UpdateStepError('the new container reported unhealthy');
    if (Date.now() >= deadline) {
      throw new UpdateStepError(
        `the new container was not healthy within ${Math.round(timeoutMs / 1000)} s (still ${details.health ?? 'without health'})`,
      );
    }
    await delay(Math.min(timing.pollMs, Math.max(0, deadline - Date.now())), signal);
  }
}
