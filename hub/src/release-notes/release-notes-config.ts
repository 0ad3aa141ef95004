import { ConfigError } from '../../../shared/config/config-error';
import { type EnvReaderContext, envInteger } from '../../../shared/config/env-readers';

/** Where release notes are fetched and with which tokens (docs/release-notes.md). */
export interface ReleaseNotesConfig {
  /** Sent to GitHub (and GitHub Enterprise hosts); else a configured ghcr registry's token is used. */
  githubToken: string | undefined;
  /** Sent to GitLab (and self-hosted hosts); else a configured gitlab registry's token is used. */
  gitlabToken: string | undefined;
  /** The REST API of github.com repositories. */
  githubApiUrl: string;
  /** The REST API (`…/api/v4`) of gitlab.com repositories. */
  gitlabApiUrl: string;
  /** GitHub Enterprise hosts (`host[:port]`): their API is `<scheme>://host/api/v3`. */
  githubHosts: string[];
  /** Self-hosted GitLab hosts: their API is `<scheme>://host/api/v4`. */
  gitlabHosts: string[];
  /** Deadline of one API request, body included. */
  timeoutMs: number;
}

export const RELEASE_NOTES_VARIABLES = [
  'DD_RELEASE_NOTES_GITHUB_TOKEN',
  'DD_RELEASE_NOTES_GITLAB_TOKEN',
  'DD_RELEASE_NOTES_GITHUB_API_URL',
  'DD_RELEASE_NOTES_GITLAB_API_URL',
  'DD_RELEASE_NOTES_GITHUB_HOSTS',
  'DD_RELEASE_NOTES_GITLAB_HOSTS',
  'DD_RELEASE_NOTES_TIMEOUT',
] as const;

/**
 * An API base: an absolute http(s) URL without credentials, query or fragment. Read as a secret, so
 * a refused value (it may hold a password) is never echoed in the error.
 */
function apiUrl(vars: EnvReaderContext, name: string, fallback: string): string {
  const raw = vars.secret(name);
  if (raw === undefined) return fallback;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (
    !url ||
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== ''
  ) {
    throw new ConfigError(name, 'must be an http:// or https:// URL without credentials, query or fragment');
  }
  return raw.replace(/\/+$/, '');
}

/** A comma-separated list of `host` or `host:port`, lower-cased. */
function hosts(vars: EnvReaderContext, name: string): string[] {
  const raw = vars.secret(name);
  if (raw === undefined) return [];
  const list = raw
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean);
  for (const host of list) {
    if (!/^[a-z0-9.-]{1,253}(:\d{1,5})?$/.test(host) || host === 'github.com' || host === 'gitlab.com') {
      throw new ConfigError(
        name,
        `must be a comma-separated list of host or host:port (not github.com or gitlab.com), got "${host.slice(0, 60)}"`,
      );
    }
  }
  return list;
}

function token(vars: EnvReaderContext, name: string): string | undefined {
  const value = vars.secret(name);
  if (value !== undefined && (value.trim() === '' || /\s/.test(value))) {
    throw new ConfigError(name, 'must be a token without spaces');
  }
  return value;
}

export function loadReleaseNotesConfig(vars: EnvReaderContext): ReleaseNotesConfig {
  return {
    githubToken: token(vars, 'DD_RELEASE_NOTES_GITHUB_TOKEN'),
    gitlabToken: token(vars, 'DD_RELEASE_NOTES_GITLAB_TOKEN'),
    githubApiUrl: apiUrl(vars, 'DD_RELEASE_NOTES_GITHUB_API_URL', 'https://api.github.com'),
    gitlabApiUrl: apiUrl(vars, 'DD_RELEASE_NOTES_GITLAB_API_URL', 'https://gitlab.com/api/v4'),
    githubHosts: hosts(vars, 'DD_RELEASE_NOTES_GITHUB_HOSTS'),
    gitlabHosts: hosts(vars, 'DD_RELEASE_NOTES_GITLAB_HOSTS'),
    timeoutMs: vars.get('DD_RELEASE_NOTES_TIMEOUT', envInteger(1, 120), 10) * 1000,
  };
}

/** What GET /api/v1/server shows: whether a token is set, never its value. */
export function maskReleaseNotesConfig(config: ReleaseNotesConfig): Record<string, unknown> {
  return {
    ...config,
    githubToken: config.githubToken === undefined ? undefined : '***',
    gitlabToken: config.gitlabToken === undefined ? undefined : '***',
  };
}
