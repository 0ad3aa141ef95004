import { ConfigError } from '../../../shared/config/config-error';
import { type EnvReaderContext, envInteger } from '../../../shared/config/env-readers';

/**
 * A GitHub Enterprise or self-hosted GitLab instance as the admin configured it: a source label may
 * name a repository on it, never its scheme or its token (issue 33, item 9).
 */
export interface ForgeHost {
  /** `host[:port]`, lower-cased: what a label's host must equal. */
  host: string;
  /** How its API is reached: `https` unless the admin wrote `http://host`. */
  scheme: 'https' | 'http';
  /** Its own token (DD_RELEASE_NOTES_<FORGE>_HOST_TOKENS); no other host's is ever sent to it. */
  token: string | undefined;
}

/** Where release notes are fetched and with which tokens (docs/release-notes.md). */
export interface ReleaseNotesConfig {
  /** Sent to github.com's API only; else a configured ghcr registry's token is used. */
  githubToken: string | undefined;
  /** Sent to gitlab.com's API only; else a configured gitlab registry's token is used. */
  gitlabToken: string | undefined;
  /** The REST API of github.com repositories. */
  githubApiUrl: string;
  /** The REST API (`…/api/v4`) of gitlab.com repositories. */
  gitlabApiUrl: string;
  /** GitHub Enterprise hosts: their API is `<scheme>://host/api/v3`. */
  githubHosts: ForgeHost[];
  /** Self-hosted GitLab hosts: their API is `<scheme>://host/api/v4`. */
  gitlabHosts: ForgeHost[];
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
  'DD_RELEASE_NOTES_GITHUB_HOST_TOKENS',
  'DD_RELEASE_NOTES_GITLAB_HOST_TOKENS',
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

const HOST = /^[a-z0-9.-]{1,253}(:\d{1,5})?$/;

/**
 * A comma-separated list of `host[:port]` (reached over https) or `http://host[:port]` /
 * `https://host[:port]`: the scheme is the admin's to choose, never a label's.
 */
function hosts(vars: EnvReaderContext, name: string): { host: string; scheme: 'https' | 'http' }[] {
  const raw = vars.secret(name);
  if (raw === undefined) return [];
  const list = raw
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  return list.map((entry) => {
    const scheme = /^(https?):\/\//.exec(entry);
    const host = (scheme ? entry.slice(scheme[0].length) : entry).replace(/\/$/, '');
    const bare = scheme?.[1] === 'http' ? host.replace(/:80$/, '') : host.replace(/:443$/, '');
    if (!HOST.test(bare) || bare === 'github.com' || bare === 'gitlab.com') {
      throw new ConfigError(
        name,
        `must be a comma-separated list of host[:port] or http(s)://host[:port] (not github.com or gitlab.com), got "${entry.slice(0, 60)}"`,
      );
    }
    return { host: bare, scheme: scheme?.[1] === 'http' ? 'http' : 'https' };
  });
}

/** `host[:port]=token,…`: each token for one host of `hostsName`, and for that host only. */
function hostTokens(vars: EnvReaderContext, name: string, hostsName: string, known: string[]): Map<string, string> {
  const tokens = new Map<string, string>();
  const raw = vars.secret(name);
  if (raw === undefined) return tokens;
  for (const entry of raw.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const at = entry.indexOf('=');
    const host = entry.slice(0, Math.max(0, at)).trim().toLowerCase();
    const value = entry.slice(at + 1).trim();
    // The token is never echoed: only the host, which is not a secret.
    if (at <= 0 || value === '' || /\s/.test(value)) {
      throw new ConfigError(name, 'must be a comma-separated list of host[:port]=token, tokens without spaces');
    }
    if (!known.includes(host)) {
      throw new ConfigError(name, `names "${host.slice(0, 60)}", which is not one of ${hostsName}`);
    }
    if (tokens.has(host)) throw new ConfigError(name, `names "${host.slice(0, 60)}" twice`);
    tokens.set(host, value);
  }
  return tokens;
}

function forgeHosts(vars: EnvReaderContext, hostsName: string, tokensName: string): ForgeHost[] {
  const listed = hosts(vars, hostsName);
  const names = listed.map((entry) => entry.host);
  const tokens = hostTokens(vars, tokensName, hostsName, names);
  return listed.map((entry) => ({ ...entry, token: tokens.get(entry.host) }));
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
    githubHosts: forgeHosts(vars, 'DD_RELEASE_NOTES_GITHUB_HOSTS', 'DD_RELEASE_NOTES_GITHUB_HOST_TOKENS'),
    gitlabHosts: forgeHosts(vars, 'DD_RELEASE_NOTES_GITLAB_HOSTS', 'DD_RELEASE_NOTES_GITLAB_HOST_TOKENS'),
    timeoutMs: vars.get('DD_RELEASE_NOTES_TIMEOUT', envInteger(1, 120), 10) * 1000,
  };
}

const mask = (token: string | undefined) => (token === undefined ? undefined : '***');

/** What GET /api/v1/server shows: whether a token is set, never its value. */
export function maskReleaseNotesConfig(config: ReleaseNotesConfig): Record<string, unknown> {
  return {
    ...config,
    githubToken: mask(config.githubToken),
    gitlabToken: mask(config.gitlabToken),
    githubHosts: config.githubHosts.map((host) => ({ ...host, token: mask(host.token) })),
    gitlabHosts: config.gitlabHosts.map((host) => ({ ...host, token: mask(host.token) })),
  };
}

/** Every token of the configuration, for the debug dump's free-text scrub. */
export function releaseNotesTokens(config: ReleaseNotesConfig): (string | undefined)[] {
  return [
    config.githubToken,
    config.gitlabToken,
    ...config.githubHosts.map((host) => host.token),
    ...config.gitlabHosts.map((host) => host.token),
  ];
}
