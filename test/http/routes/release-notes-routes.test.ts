import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { containerRecord } from '../../support/container-fixture';
import { describeHubMatrix, expectJsonError, jsonInit } from '../../support/hub-harness';
import { type FixtureRelease, type ReleaseApiServer, startReleaseApiServer } from '../../support/release-api-server';

// hub/src/routes/release-notes-routes.ts against GitHub's and GitLab's release APIs served by
// test/support/release-api-server.ts (pages, rate limits, 404s), over container records put in the
// store. What the answers mean: docs/release-notes.md.

const GITHUB_TOKEN = 'ghp_fixturetoken0123456789';
const GITLAB_TOKEN = 'glpat-fixturetoken0123456789';
const SELF_HOSTED_TOKEN = 'glpat-selfhostedfixture0123456789';
const id = (n: number) => n.toString(16).padStart(64, '0');
const date = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().replace('.000', '');

/** 120 releases v1.0.0 … v1.11.9, newest first: more than one page of 100. */
const APP_RELEASES: FixtureRelease[] = [];
for (let minor = 11; minor >= 0; minor--) {
  for (let patch = 9; patch >= 0; patch--) {
    APP_RELEASES.push({
      tag: `v1.${minor}.${patch}`,
      name: `App 1.${minor}.${patch}`,
      body: `## Changes\n\n- fix number ${minor * 10 + patch}`,
      date: date(minor * 10 + patch),
    });
  }
}
APP_RELEASES.unshift({ tag: 'v1.12.0', name: 'Draft', date: date(200), draft: true });
APP_RELEASES.unshift({ tag: 'v2.0.0-rc.1', name: 'App 2.0.0 RC 1', body: 'Try it', date: date(201), prerelease: true });

/** A monorepo on a self-hosted GitLab: 105 releases of `tool@2.0.n` and others' releases between them. */
const TOOL_RELEASES: FixtureRelease[] = [];
for (let n = 104; n >= 0; n--) {
  TOOL_RELEASES.push({ tag: `tool@2.0.${n}`, body: `Tool notes ${n}`, date: date(n) });
  if (n % 10 === 0) TOOL_RELEASES.push({ tag: `other@2.0.${n}`, body: 'Not the tool', date: date(n) });
}

function tagUpdate(from: string, to: string): Pick<Container, 'updateAvailable' | 'updateKind'> {
  return { updateAvailable: true, updateKind: { kind: 'tag', localValue: from, remoteValue: to } };
}

const sourced = (n: number, source: string, image: string, tag: string, over: Partial<Container> = {}) => {
  const record = containerRecord({ id: id(n), name: `c${n}`, labels: { 'org.opencontainers.image.source': source } });
  return {
    ...record,
    image: { ...record.image, registry: { url: 'ghcr.io' }, name: image, tag: { value: tag, semver: true } },
    ...over,
  };
};

const env: Record<string, string> = {
  DD_RELEASE_NOTES_GITHUB_TOKEN: GITHUB_TOKEN,
  DD_RELEASE_NOTES_GITLAB_TOKEN: GITLAB_TOKEN,
  DD_RELEASE_NOTES_TIMEOUT: '1',
};
let forge: ReleaseApiServer;
let records: Container[] = [];

beforeAll(async () => {
  forge = await startReleaseApiServer();
  env.DD_RELEASE_NOTES_GITHUB_API_URL = forge.url;
  env.DD_RELEASE_NOTES_GITLAB_API_URL = `${forge.url}/api/v4`;
  // A self-hosted GitLab at the fixture's address, over http and with its own token, as the admin says.
  env.DD_RELEASE_NOTES_GITLAB_HOSTS = `http://${forge.host}`;
  env.DD_RELEASE_NOTES_GITLAB_HOST_TOKENS = `${forge.host}=${SELF_HOSTED_TOKEN}`;
  forge.github('acme/app', APP_RELEASES);
  forge.gitlab('group/sub/tool', TOOL_RELEASES);
  forge.github('acme/quiet', []);
  forge.fail('github', 'acme/broken');
  forge.raw('/repos/hostile/object/releases', { body: '{"message":"not a list"}' });
  forge.raw('/repos/hostile/json/releases', { body: '[{"tag_name": "v1.0.1",' });
  forge.raw('/repos/hostile/huge/releases', { body: `[${'"x",'.repeat(1_200_000)}"x"]` });
  forge.raw('/repos/hostile/hung/releases', { body: '[]', stall: true });
  forge.raw('/repos/hostile/redirect/releases', { status: 302, body: '', headers: { location: 'http://127.0.0.2/x' } });
  forge.raw('/repos/hostile/elsewhere/releases', {
    body: JSON.stringify([
      { tag_name: 'v1.0.1', name: 'One', body: 'x'.repeat(200_000), html_url: 'javascript:alert(1)' },
    ]),
    // The next page on another origin: the token must not follow it.
    headers: { link: '<http://127.0.0.2:1/repos/hostile/elsewhere/releases?page=2>; rel="next"' },
  });
  const gitlabSource = `${forge.url}/group/sub/tool`;
  records = [
    sourced(1, 'https://github.com/acme/app', 'acme/app', '1.0.0-alpine', tagUpdate('1.0.0-alpine', '1.0.1-alpine')),
    sourced(2, `${gitlabSource}.git`, 'group/tool', '2.0.0', tagUpdate('2.0.0', '2.0.1')),
    sourced(3, 'https://github.com/acme/none', 'acme/none', '1.0.0', tagUpdate('1.0.0', '1.1.0')),
    sourced(4, 'https://github.com/acme/broken', 'acme/broken', '1.0.0', tagUpdate('1.0.0', '1.1.0')),
    sourced(5, 'https://github.com/acme/quiet', 'acme/quiet', '1.0.0', tagUpdate('1.0.0', '1.1.0')),
    sourced(6, 'https://github.com/acme/app', 'acme/app', '1.11.9'),
    sourced(7, 'https://bitbucket.org/acme/app', 'acme/app', '1.0.0', tagUpdate('1.0.0', '1.0.1')),
    containerRecord({ id: id(8), name: 'c8', ...tagUpdate('1.0.0', '1.0.1') }),
    sourced(9, 'https://github.com/acme/app', 'acme/app', '1.5.0', tagUpdate('1.5.0', '1.99.0')),
    sourced(10, 'https://github.com/acme/limited', 'acme/limited', '1.0.0', tagUpdate('1.0.0', '1.1.0')),
    sourced(11, 'https://gitlab.com/acme/limited', 'acme/limited', '1.0.0', tagUpdate('1.0.0', '1.1.0')),
  ];
});

afterAll(async () => {
  await forge?.close();
});

const appRelease = (minor: number, patch: number) => ({
  tag: `v1.${minor}.${patch}`,
  version: `1.${minor}.${patch}`,
  title: `App 1.${minor}.${patch}`,
  date: date(minor * 10 + patch),
  body: `## Changes\n\n- fix number ${minor * 10 + patch}`,
  url: `https://github.com/acme/app/releases/tag/v1.${minor}.${patch}`,
  prerelease: false,
});

describeHubMatrix(
  'release notes',
  (client) => {
    const get = async (path: string) => {
      const response = await client().request(path);
      expect(response.status, path).toBe(200);
      return (await response.json()) as Record<string, unknown> & { releases?: { tag: string }[] };
    };
    const asked = (path: string) => forge.requests.filter((request) => request.path.startsWith(path));

    beforeAll(async () => {
      for (const record of records) await client().hub.parts.containers.put(record);
    });

    it('serves the GitHub release of the target tag, its variant dropped, found on the second page with the token', async () => {
      const before = asked('/repos/acme/app/').length;
      const answer = await get(`/api/v1/containers/${id(1)}/release-notes`);
      expect(answer).toEqual({
        containerId: id(1),
        status: 'ok',
        message: 'Release v1.0.1',
        source: {
          forge: 'github',
          host: 'github.com',
          repository: 'acme/app',
          url: 'https://github.com/acme/app',
          label: 'org.opencontainers.image.source',
        },
        target: '1.0.1-alpine',
        release: appRelease(0, 1),
      });
      const requests = asked('/repos/acme/app/').slice(before);
      expect(requests.map((request) => request.path)).toEqual([
        '/repos/acme/app/releases?per_page=100',
        '/repos/acme/app/releases?per_page=100&page=2',
      ]);
      expect(requests.every((request) => request.credential === `Bearer ${GITHUB_TOKEN}`)).toBe(true);
    });

    it('answers intermediate notes from the cache, oldest first, drafts and prereleases left out', async () => {
      const before = forge.requests.length;
      const answer = await get(`/api/v1/containers/${id(1)}/intermediate-release-notes?from=1.0.0&to=v1.1.2`);
      expect(answer).toMatchObject({
        status: 'ok',
        from: '1.0.0',
        to: '1.1.2',
        message: '12 releases after 1.0.0 up to 1.1.2',
      });
      expect(answer.releases).toEqual([
        ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((patch) => appRelease(0, patch)),
        appRelease(1, 0),
        appRelease(1, 1),
        appRelease(1, 2),
      ]);
      const toTarget = await get(`/api/v1/containers/${id(1)}/intermediate-release-notes?from=v1.0.0`);
      expect(toTarget).toMatchObject({ status: 'ok', to: '1.0.1', releases: [appRelease(0, 1)] });
      const upToRc = await get(`/api/v1/containers/${id(6)}/intermediate-release-notes?from=1.11.8&to=2.0.0-rc.1`);
      expect(upToRc.releases?.map((release) => release.tag)).toEqual(['v1.11.9', 'v2.0.0-rc.1']);
      expect(upToRc.releases?.at(-1)).toMatchObject({ prerelease: true, title: 'App 2.0.0 RC 1', body: 'Try it' });
      expect(forge.requests.length).toBe(before);
    });

    it('reads a self-hosted GitLab project with X-Next-Page and the monorepo prefix of the image', async () => {
      const before = asked('/api/v4/').length;
      const answer = await get(`/api/v1/containers/${id(2)}/release-notes`);
      expect(answer).toEqual({
        containerId: id(2),
        status: 'ok',
        message: 'Release tool@2.0.1',
        source: {
          forge: 'gitlab',
          host: forge.host,
          repository: 'group/sub/tool',
          url: `${forge.url}/group/sub/tool`,
          label: 'org.opencontainers.image.source',
        },
        target: '2.0.1',
        release: {
          tag: 'tool@2.0.1',
          version: '2.0.1',
          title: 'tool@2.0.1',
          date: date(1),
          body: 'Tool notes 1',
          url: `${forge.url}/group/sub/tool/-/releases/tool%402.0.1`,
          prerelease: false,
        },
      });
      const requests = asked('/api/v4/').slice(before);
      expect(requests.map((request) => request.path)).toEqual([
        '/api/v4/projects/group%2Fsub%2Ftool/releases?per_page=100',
        '/api/v4/projects/group%2Fsub%2Ftool/releases?per_page=100&page=2',
      ]);
      expect(requests.every((request) => request.credential === SELF_HOSTED_TOKEN)).toBe(true);
      const between = await get(`/api/v1/containers/${id(2)}/intermediate-release-notes?from=2.0.8&to=2.0.11`);
      expect(between.releases?.map((release) => release.tag)).toEqual(['tool@2.0.9', 'tool@2.0.10', 'tool@2.0.11']);
    });

    it('explains every container it has no notes for, with a 200', async () => {
      const status = async (n: number) => {
        const answer = await get(`/api/v1/containers/${id(n)}/release-notes`);
        expect(answer.release, `container ${n}`).toBeNull();
        return [answer.status, answer.message];
      };
      expect(await status(3)).toEqual([
        'no-releases',
        'github acme/none answered 404: no such repository, or not visible without a token',
      ]);
      expect(await status(5)).toEqual(['no-releases', 'github acme/quiet has published no releases']);
      expect(await status(4)).toEqual(['upstream-error', 'github acme/broken: answered 500']);
      expect((await status(6))[0]).toBe('no-update');
      expect((await status(7))[0]).toBe('unsupported-source');
      expect((await status(8))[0]).toBe('no-source');
      expect(await status(9)).toEqual(['release-not-found', 'No release of acme/app matches the tag 1.99.0']);
      // A forge failure stays in these answers: the container itself is served as ever.
      expect((await client().request(`/api/v1/containers/${id(4)}`)).status).toBe(200);
      const noTarget = await get(`/api/v1/containers/${id(6)}/intermediate-release-notes?from=1.0.0`);
      expect(noTarget).toMatchObject({ status: 'no-update', to: null, releases: [] });
    });

    it('puts the target release in the update preview, and a forge failure there as a status', async () => {
      const preview = await client().request(`/api/v1/containers/${id(1)}/preview`, { method: 'POST' });
      expect(preview.status).toBe(200);
      expect(await preview.json()).toMatchObject({
        target: { tag: '1.0.1-alpine' },
        releaseNotes: { status: 'ok', message: 'Release v1.0.1', release: appRelease(0, 1) },
      });
      const failed = await client().request(`/api/v1/containers/${id(4)}/preview`, { method: 'POST' });
      expect(failed.status).toBe(200);
      expect(await failed.json()).toMatchObject({ releaseNotes: { status: 'upstream-error', release: null } });
    });

    it('reports a hostile or hung forge as upstream-error, and follows no link to another origin', async () => {
      const answer = async (repository: string, n: number) => {
        await client().hub.parts.containers.put(
          sourced(
            n,
            `https://github.com/hostile/${repository}`,
            `hostile/${repository}`,
            '1.0.0',
            tagUpdate('1.0.0', '1.0.1'),
          ),
        );
        return get(`/api/v1/containers/${id(n)}/release-notes`);
      };
      expect(await answer('object', 30)).toMatchObject({
        status: 'upstream-error',
        message: 'github hostile/object: answered something that is not a release list',
      });
      expect((await answer('json', 31)).message).toMatch(/^github hostile\/json: unreadable page/);
      expect((await answer('huge', 32)).message).toMatch(/larger than 4194304 bytes/);
      expect(await answer('hung', 33)).toMatchObject({
        status: 'upstream-error',
        message: 'github hostile/hung: no answer within 1000 ms',
      });
      expect(await answer('redirect', 34)).toMatchObject({
        status: 'upstream-error',
        message: 'github hostile/redirect: answered 302',
      });
      const elsewhere = await answer('elsewhere', 35);
      expect(elsewhere).toMatchObject({ status: 'ok', release: { tag: 'v1.0.1', url: null } });
      expect((elsewhere.release as { body: string }).body).toHaveLength(125_000);
    });

    it('refuses a missing or non-semver from or to, and an unknown container', async () => {
      const path = `/api/v1/containers/${id(1)}/intermediate-release-notes`;
      await expectJsonError(await client().request(path), 400);
      await expectJsonError(await client().request(`${path}?from=`), 400);
      for (const query of [
        'from=latest',
        'from=1.2',
        'from=app@1.2.3',
        'from=1.0.0&to=main',
        `from=${'9'.repeat(200)}`,
      ]) {
        await expectJsonError(await client().request(`${path}?${query}`), 400);
      }
      await expectJsonError(await client().request(`/api/v1/containers/${id(99)}/release-notes`), 404);
      await expectJsonError(
        await client().request(`/api/v1/containers/${id(99)}/intermediate-release-notes?from=1.0.0`),
        404,
      );
    });

    it('asks no forge while internetlessMode is on, and says so; cached notes are still served', async () => {
      const patched = await client().request('/api/v1/settings', jsonInit('PATCH', { internetlessMode: true }));
      expect(patched.status).toBe(200);
      try {
        const before = forge.requests.length;
        expect(await get(`/api/v1/containers/${id(1)}/release-notes`)).toMatchObject({
          status: 'ok',
          release: appRelease(0, 1),
        });
        forge.github('acme/later', APP_RELEASES);
        await client().hub.parts.containers.put(
          sourced(12, 'https://github.com/acme/later', 'acme/later', '1.0.0', tagUpdate('1.0.0', '1.0.1')),
        );
        const offline = await get(`/api/v1/containers/${id(12)}/release-notes`);
        expect(offline).toMatchObject({ status: 'internetless', release: null, source: { repository: 'acme/later' } });
        expect(offline.message).toMatch(/internetlessMode/);
        const between = await get(`/api/v1/containers/${id(12)}/intermediate-release-notes?from=1.0.0&to=1.0.5`);
        expect(between).toMatchObject({ status: 'internetless', releases: [] });
        expect(forge.requests.length).toBe(before);
      } finally {
        await client().request('/api/v1/settings', jsonInit('PATCH', { internetlessMode: false }));
      }
      expect(await get(`/api/v1/containers/${id(12)}/release-notes`)).toMatchObject({ status: 'ok' });
    });

    it('never shows the tokens', async () => {
      const server = await (await client().request('/api/v1/server')).text();
      expect(server).not.toContain(GITHUB_TOKEN);
      expect(server).not.toContain(GITLAB_TOKEN);
      expect(server).not.toContain(SELF_HOSTED_TOKEN);
      expect(server).toContain('"githubToken":"***"');
      // The log ring holds the warnings of the failing and hostile forges above: none quotes a token.
      const logs = await (await client().request('/api/v1/log/entries?limit=1000')).text();
      expect(logs).toContain('release notes: forge failed');
      expect(logs).not.toContain(GITHUB_TOKEN);
      expect(logs).not.toContain(GITLAB_TOKEN);
    });

    // Last: a spent limit pauses the forge for the rest of this hub's life.
    it('reports a spent rate limit with its reset, and leaves the forge alone until then', async () => {
      const resetAt = Math.floor(Date.now() / 1000) + 600;
      forge.limit('github', 0, resetAt);
      forge.limit('gitlab', 0, resetAt);
      try {
        const limited = await get(`/api/v1/containers/${id(10)}/release-notes`);
        expect(limited).toMatchObject({
          status: 'rate-limited',
          release: null,
          retryAt: new Date(resetAt * 1000).toISOString(),
        });
        const before = forge.requests.length;
        const again = await get(`/api/v1/containers/${id(10)}/intermediate-release-notes?from=1.0.0`);
        expect(again).toMatchObject({ status: 'rate-limited', releases: [] });
        expect(forge.requests.length).toBe(before);
        // GitLab says 429 with Retry-After (seconds).
        const gitlab = await get(`/api/v1/containers/${id(11)}/release-notes`);
        expect(gitlab).toMatchObject({ status: 'rate-limited', source: { forge: 'gitlab', host: 'gitlab.com' } });
        expect(Math.abs(Date.parse(String(gitlab.retryAt)) - resetAt * 1000)).toBeLessThan(3000);
      } finally {
        forge.limit('github', Number.POSITIVE_INFINITY, 0);
        forge.limit('gitlab', Number.POSITIVE_INFINITY, 0);
      }
    });
  },
  env,
);

const registryEnv: Record<string, string> = {
  DD_REGISTRY_GHCR_PRIVATE_LOGIN: 'release-bot',
  DD_REGISTRY_GHCR_PRIVATE_TOKEN: 'ghp_registrytoken0123456789',
};

beforeAll(() => {
  registryEnv.DD_RELEASE_NOTES_GITHUB_API_URL = forge.url;
});

describeHubMatrix(
  'release notes with the token of a ghcr registry',
  (client) => {
    it('sends the ghcr token to GitHub when no DD_RELEASE_NOTES_GITHUB_TOKEN is set', async () => {
      forge.github('acme/private', APP_RELEASES);
      await client().hub.parts.containers.put(
        sourced(20, 'https://github.com/acme/private', 'acme/private', '1.0.0', tagUpdate('1.0.0', '1.0.1')),
      );
      const response = await client().request(`/api/v1/containers/${id(20)}/release-notes`);
      expect(await response.json()).toMatchObject({ status: 'ok', release: { tag: 'v1.0.1' } });
      const requests = forge.requests.filter((request) => request.path.startsWith('/repos/acme/private/'));
      expect(requests.map((request) => request.credential)).toEqual([
        'Bearer ghp_registrytoken0123456789',
        'Bearer ghp_registrytoken0123456789',
      ]);
    });
  },
  registryEnv,
  { modes: ['memory'] },
);
