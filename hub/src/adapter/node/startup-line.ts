import { resolve } from 'node:path';
import type { HubConfig } from '../../config/hub-config';
import { showVariable } from '../../config/secret-variables';

/** The fields of the one `hub listening` line the Node entry logs at start (docs/operations.md "Start-up line"). */
export type StartupLine = {
  version: string;
  /** `node v20.20.2`. */
  runtime: string;
  /** The driver and where it keeps data, never a credential: `fs /srv/data`, `redis redis://***@cache:6379/0`, `memory`. */
  storage: string;
  /** `http://127.0.0.1:3000`. */
  address: string;
  host: string;
  port: number;
  /**
   * The authentication mode: `anonymous`, or the configured kinds of sign-in (`basic`, `oidc`,
   * `basic+oidc`). Not named `auth`: the logger masks every field whose name says auth (shared/redact.ts).
   */
  signIn: string;
};

export function startupLine(
  config: Pick<HubConfig, 'store' | 'anonymous' | 'auth'>,
  listening: { host: string; port: number; version: string; nodeVersion: string },
): StartupLine {
  const { host, port } = listening;
  return {
    version: listening.version,
    runtime: `node ${listening.nodeVersion}`,
    storage: describeStorage(config.store),
    address: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    host,
    port,
    signIn: authMode(config),
  };
}

export function describeStorage(store: HubConfig['store']): string {
  switch (store.driver) {
    case 'fs':
      return `fs ${resolve(store.path)}`;
    case 'memory':
      return 'memory';
    case 'redis':
      // As the secret table shows DD_STORE_URL: no user, password, query; a database number or socket path kept.
      return `redis ${store.url === undefined ? '(no DD_STORE_URL)' : showVariable('DD_STORE_URL', store.url)}`;
  }
}

function authMode(config: Pick<HubConfig, 'anonymous' | 'auth'>): string {
  if (config.anonymous) return 'anonymous';
  const kinds = [config.auth.basic.length > 0 && 'basic', config.auth.oidc.length > 0 && 'oidc'].filter(Boolean);
  return kinds.length > 0 ? kinds.join('+') : 'none configured';
}
