import { describe, expect, it } from 'vitest';
import type { ReleaseNotesConfig } from './release-notes-config';
import { releaseSourceOf } from './release-source';

const config: ReleaseNotesConfig = {
  githubToken: undefined,
  gitlabToken: undefined,
  githubApiUrl: 'https://api.github.com',
  gitlabApiUrl: 'https://gitlab.com/api/v4',
  githubHosts: [
    { host: 'ghe.example.com', scheme: 'https', token: 'ghe-token' },
    { host: 'ghe.lan', scheme: 'http', token: undefined },
  ],
  gitlabHosts: [{ host: 'git.example.org:8443', scheme: 'https', token: undefined }],
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
      instance: 'ghe.example.com',
    });
    expect(source({ 'org.opencontainers.image.source': 'https://git.example.org:8443/ops/tool' })).toMatchObject({
      forge: 'gitlab',
      apiBase: 'https://git.example.org:8443/api/v4',
      url: 'https://git.example.org:8443/ops/tool',
    });
  });

  it('takes the scheme from the configuration, never from the label (issue 33, item 9)', () => {
    // An https host named with http:// in a label is still reached over https.
    for (const value of [
      'http://ghe.example.com/team/svc',
      'git@ghe.example.com:team/svc.git',
      'ghe.example.com/team/svc',
    ]) {
      expect(source({ 'dd.source.repo': value }), value).toMatchObject({
        apiBase: 'https://ghe.example.com/api/v3',
        url: 'https://ghe.example.com/team/svc',
      });
    }
    expect(source({ 'dd.source.repo': 'http://git.example.org:8443/ops/tool' })).toMatchObject({
      apiBase: 'https://git.example.org:8443/api/v4',
    });
    // The admin configured this one with http://: a label saying https changes nothing either.
    expect(source({ 'dd.source.repo': 'https://ghe.lan/team/svc' })).toMatchObject({
      apiBase: 'http://ghe.lan/api/v3',
      url: 'http://ghe.lan/team/svc',
      instance: 'ghe.lan',
    });
    expect(source({ 'dd.source.repo': 'http://github.com/acme/app' })).toMatchObject({
      apiBase: 'https://api.github.com',
      url: 'https://github.com/acme/app',
    });
    expect(source({ 'dd.source.repo': 'http://github.com/acme/app' })).not.toHaveProperty('instance');
    // Another port is another host, which is not configured.
    expect(source({ 'dd.source.repo': 'https://ghe.example.com:8443/team/svc' })).toMatchObject({
      status: 'unsupported-source',
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
