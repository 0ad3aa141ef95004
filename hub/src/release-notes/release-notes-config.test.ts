import { describe, expect, it } from 'vitest';
import { configErrorOf } from '../../../test/support/config-error-of';
import { loadHubConfig, maskHubConfig } from '../config/hub-config';
import { configuredSecrets } from '../routes/debug-dump';

const load = (env: Record<string, string>) =>
  loadHubConfig(env, () => {
    throw new Error('ENOENT');
  });

const errorOf = (env: Record<string, string>) => configErrorOf(() => load(env));

describe('DD_RELEASE_NOTES_*', () => {
  it('defaults to the public forges, no token, 10 s', () => {
    expect(load({}).releaseNotes).toEqual({
      githubToken: undefined,
      gitlabToken: undefined,
      githubApiUrl: 'https://api.github.com',
      gitlabApiUrl: 'https://gitlab.com/api/v4',
      githubHosts: [],
      gitlabHosts: [],
      timeoutMs: 10_000,
    });
  });

  it('reads every variable, knows them all, and masks the tokens', () => {
    const config = load({
      DD_RELEASE_NOTES_GITHUB_TOKEN: 'ghp_secretvalue',
      DD_RELEASE_NOTES_GITLAB_TOKEN: 'glpat-secretvalue',
      DD_RELEASE_NOTES_GITHUB_API_URL: 'http://127.0.0.1:9/api/',
      DD_RELEASE_NOTES_GITLAB_API_URL: 'https://gitlab.mirror.lan/api/v4',
      DD_RELEASE_NOTES_GITHUB_HOSTS: 'GHE.example.com, http://ghe2.example.com:8443, https://ghe3.example.com:443/',
      DD_RELEASE_NOTES_GITHUB_HOST_TOKENS: 'ghe2.example.com:8443=ghp_hostsecretvalue',
      DD_RELEASE_NOTES_GITLAB_HOSTS: 'git.example.org',
      DD_RELEASE_NOTES_GITLAB_HOST_TOKENS: 'GIT.example.org = glpat-hostsecretvalue',
      DD_RELEASE_NOTES_TIMEOUT: '3',
    });
    expect(config.unknownVariables).toEqual([]);
    expect(config.releaseNotes).toMatchObject({
      githubApiUrl: 'http://127.0.0.1:9/api',
      githubHosts: [
        { host: 'ghe.example.com', scheme: 'https', token: undefined },
        { host: 'ghe2.example.com:8443', scheme: 'http', token: 'ghp_hostsecretvalue' },
        { host: 'ghe3.example.com', scheme: 'https', token: undefined },
      ],
      gitlabHosts: [{ host: 'git.example.org', scheme: 'https', token: 'glpat-hostsecretvalue' }],
      timeoutMs: 3000,
    });
    const shown = JSON.stringify(maskHubConfig(config));
    expect(shown).not.toContain('secretvalue');
    expect(maskHubConfig(config).releaseNotes).toMatchObject({
      githubToken: '***',
      gitlabToken: '***',
      githubHosts: [{ token: undefined }, { host: 'ghe2.example.com:8443', scheme: 'http', token: '***' }, {}],
      gitlabHosts: [{ token: '***' }],
    });
    // The debug dump scrubs them from free text too (a log line quoting a request).
    expect(configuredSecrets(config)).toEqual(
      expect.arrayContaining(['ghp_secretvalue', 'glpat-secretvalue', 'ghp_hostsecretvalue', 'glpat-hostsecretvalue']),
    );
  });

  it('stops start-up on a bad value, naming the variable and never echoing a URL or token', () => {
    const cases: Record<string, string> = {
      DD_RELEASE_NOTES_GITHUB_API_URL: 'https://user:hunter2@api.example.com',
      DD_RELEASE_NOTES_GITLAB_API_URL: 'ftp://hunter2.example.com',
      DD_RELEASE_NOTES_GITHUB_HOSTS: 'https://ghe.example.com/api',
      DD_RELEASE_NOTES_GITLAB_HOSTS: 'gitlab.com',
      DD_RELEASE_NOTES_GITHUB_TOKEN: 'hunter2 hunter2',
      DD_RELEASE_NOTES_TIMEOUT: '0',
    };
    for (const [name, value] of Object.entries(cases)) {
      const message = errorOf({ [name]: value }).message;
      expect(message, name).toMatch(new RegExp(`^${name}`));
      if (name !== 'DD_RELEASE_NOTES_GITHUB_HOSTS' && name !== 'DD_RELEASE_NOTES_GITLAB_HOSTS') {
        expect(message, name).not.toContain('hunter2');
      }
    }
  });

  it('binds each host token to one configured host, and never echoes it', () => {
    const hosts = { DD_RELEASE_NOTES_GITHUB_HOSTS: 'ghe.example.com' };
    const cases: Record<string, string> = {
      'elsewhere.example.com=hunter2': 'not one of DD_RELEASE_NOTES_GITHUB_HOSTS',
      hunter2: 'host[:port]=token',
      'ghe.example.com=hunter2 hunter2': 'host[:port]=token',
      'ghe.example.com=': 'host[:port]=token',
      'ghe.example.com=hunter2,ghe.example.com=hunter3': 'twice',
    };
    for (const [value, expected] of Object.entries(cases)) {
      const message = errorOf({ ...hosts, DD_RELEASE_NOTES_GITHUB_HOST_TOKENS: value }).message;
      expect(message, value).toMatch(/^DD_RELEASE_NOTES_GITHUB_HOST_TOKENS/);
      expect(message, value).toContain(expected);
      expect(message, value).not.toContain('hunter');
    }
    // A GitLab token names a GitLab host: a GitHub Enterprise host is not one.
    expect(errorOf({ ...hosts, DD_RELEASE_NOTES_GITLAB_HOST_TOKENS: 'ghe.example.com=glpat-x' }).message).toContain(
      'not one of DD_RELEASE_NOTES_GITLAB_HOSTS',
    );
  });
});
