import { describe, expect, it } from 'vitest';
import type { ReleaseNotesConfig } from './release-notes-config';
import { releaseSourceOf } from './release-source';

const config: ReleaseNotesConfig = {
  githubToken: undefined,
  gitlabToken: undefined,
  githubApiUrl: 'https://api.github.com',
  gitlabApiUrl: 'https://gitlab.com/api/v4',
  githubHosts: ['ghe.example.com'],
  gitlabHosts: ['git.example.org:8443'],
  timeoutMs: 10_000,
};

const source = (labels: Record<string, string>) => releaseSourceOf({ labels }, config);

describe('releaseSourceOf', () => {
  it('reads the OCI source label in the shapes images carry', () => {
    const github = { forge: 'github', repository: 'acme/app', apiBase: 'https://api.github.com', host: 'github.com' };
    for (const value of [
      'https://github.com/acme/app',
      'https://github.com/acme/app.git',
      'https://github.com/acme/app/tree/main/services/app',
      'git@github.com:acme/app.git',
      'git+https://github.com/acme/app',
      'github.com/acme/app',
    ]) {
      expect(source({ 'org.opencontainers.image.source': value }), value).toMatchObject(github);
    }
  });

  it('knows GitLab groups, GitHub Enterprise and self-hosted GitLab hosts', () => {
    expect(source({ 'org.opencontainers.image.source': 'https://gitlab.com/group/sub/app/-/tree/main' })).toMatchObject(
      {
        forge: 'gitlab',
        repository: 'group/sub/app',
        apiBase: 'https://gitlab.com/api/v4',
      },
    );
    expect(source({ 'org.opencontainers.image.source': 'https://ghe.example.com/team/svc' })).toMatchObject({
      forge: 'github',
      apiBase: 'https://ghe.example.com/api/v3',
    });
    expect(source({ 'org.opencontainers.image.source': 'http://git.example.org:8443/ops/tool' })).toMatchObject({
      forge: 'gitlab',
      apiBase: 'http://git.example.org:8443/api/v4',
      url: 'http://git.example.org:8443/ops/tool',
    });
  });

  it('lets dd.source.repo win, and falls back to a dd.link.template on a forge', () => {
    expect(
      source({
        'dd.source.repo': 'https://github.com/real/app',
        'org.opencontainers.image.source': 'https://github.com/fork/app',
      }),
    ).toMatchObject({ repository: 'real/app', label: 'dd.source.repo' });
    expect(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the dd.link.template syntax is literally ${name}
      source({ 'dd.link.template': 'https://github.com/traefik/traefik/releases/tag/v${major}.${minor}.${patch}' }),
    ).toMatchObject({ repository: 'traefik/traefik', label: 'dd.link.template' });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the dd.link.template syntax is literally ${name}
    expect(source({ 'dd.link.template': 'https://example.com/changelog#${raw}' })).toMatchObject({
      status: 'no-source',
    });
  });

  it('explains what it cannot use', () => {
    expect(source({})).toMatchObject({ status: 'no-source' });
    expect(source({ 'org.opencontainers.image.source': 'https://bitbucket.org/acme/app' })).toMatchObject({
      status: 'unsupported-source',
    });
    for (const value of [
      'https://github.com/acme',
      'https://user:pw@github.com/acme/app',
      'ftp://github.com/a/b',
      'https://github.com/a/..',
    ]) {
      expect(source({ 'org.opencontainers.image.source': value }), value).toMatchObject({
        status: 'unsupported-source',
      });
    }
  });
});
