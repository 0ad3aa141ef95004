import { readFileSync } from 'node:fs';
import packageJson from '../../../../package.json' with { type: 'json' };
import type { Environment } from '../../../../shared/config/env-source';
import { errorMessage } from '../../../../shared/error-message';
import { loadHubConfig } from '../../config/hub-config';

/** A container's HEALTHCHECK gets its answer well inside Docker's default 30 s probe timeout. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * The hub's one-shot modes, for container images (docs/deploy.md): `--version` prints the version,
 * `--healthcheck` asks this machine's hub for `GET /health` (http-interface §4.14) without curl.
 * Answers the exit code, or undefined when the arguments ask for neither and the hub should start.
 */
export async function runCommandLineMode(
  argv: readonly string[],
  env: Environment,
  print: (line: string) => void = (line) => console.log(line),
): Promise<number | undefined> {
  if (argv.includes('--version')) {
    print(packageJson.version);
    return 0;
  }
  if (!argv.includes('--healthcheck')) return undefined;
  try {
    const url = healthUrl(env);
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body = (await response.json().catch(() => undefined)) as { status?: unknown } | undefined;
    if (response.status === 200 && body?.status === 'ok') return 0;
    print(`hub: ${url} answered ${response.status}`);
  } catch (error) {
    print(`hub: health check failed: ${errorMessage(error)}`);
  }
  return 1;
}

/** The configured port and host (the same variables the hub reads), a wildcard address probed on loopback. */
function healthUrl(env: Environment): string {
  const { server } = loadHubConfig(env, (path) => readFileSync(path, 'utf8'));
  const wildcard = server.host === '0.0.0.0' || server.host === '::' || server.host === '';
  const host = wildcard ? '127.0.0.1' : server.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${server.port}/health`;
}
