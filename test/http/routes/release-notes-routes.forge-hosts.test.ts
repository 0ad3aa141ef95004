import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Container } from '../../../shared/schemas/container';
import { containerRecord } from '../../support/container-fixture';
import { describeHubMatrix } from '../../support/hub-harness';
import { type FixtureRelease, type ReleaseApiServer, startReleaseApiServer } from '../../support/release-api-server';

// Issue 33, item 9: `dd.source.repo=http://<configured Enterprise host>/o/r` sent the GitHub token
// over plain http, and github.com's token went to every Enterprise host. A label names a
// repository; the scheme and the token come from the admin's configuration of that host only
// (docs/release-notes.md "Hosts, schemes and tokens"). Each forge below is a GitHub or GitLab
// release API on loopback that records the credential header of every request it gets.

const GITHUB_TOKEN = 'ghp_dotcomtoken0123456789';
const GITLAB_TOKEN = 'glpat-dotcomtoken0123456789';
const GHE_TOKEN = 'ghp_enterprisetoken0123456789';
const HTTPS_GHE_TOKEN = 'ghp_httpsenterprisetoken0123456789';
const SELF_HOSTED_TOKEN = 'glpat-selfhostedtoken0123456789';
const RELEASES: FixtureRelease[] = [{ tag: 'v1.0.1', name: 'One', body: 'Fixed', date: '2026-03-01T10:00:00Z' }];

const id = (n: number) => n.toString(16).padStart(64, '0');
const labelled = (n: number, source: string, image: string): Container => {
  const record = containerRecord({ id: id(n), name: `c${n}`, labels: { 'dd.source.repo': source } });
  return {
    ...record,
    image: { ...record.image, name: image, tag: { value: '1.0.0', semver: true } },
    updateAvailable: true,
    updateKind: { kind: 'tag', localValue: '1.0.0', remoteValue: '1.0.1' },
  };
};

/** github.com's and gitlab.com's APIs (DD_RELEASE_NOTES_*_API_URL). */
let dotcom: ReleaseApiServer;
/** Enterprise hosts: configured http:// with a token; configured http:// without one; configured bare (https) with one. */
let ghe: ReleaseApiServer;
let gheNoToken: ReleaseApiServer;
let gheHttps: ReleaseApiServer;
/** Self-hosted GitLab: configured http:// with a token; configured http:// without one; configured bare (https). */
let gitlab: ReleaseApiServer;
let gitlabNoToken: ReleaseApiServer;
let gitlabHttps: ReleaseApiServer;
const env: Record<string, string> = {
  DD_RELEASE_NOTES_GITHUB_TOKEN: GITHUB_TOKEN,
  DD_RELEASE_NOTES_GITLAB_TOKEN: GITLAB_TOKEN,
  DD_RELEASE_NOTES_TIMEOUT: '2',
};

beforeAll(async () => {
  const start = startReleaseApiServer;
  [dotcom, ghe, gheNoToken, gheHttps, gitlab, gitlabNoToken, gitlabHttps] = await Promise.all([
    start(),
    start(),
    start(),
    start(),
    start(),
    start(),
    start(),
  ]);
  for (const forge of [dotcom, ghe, gheNoToken, gheHttps]) forge.github('acme/app', RELEASES);
  for (const forge of [dotcom, gitlab, gitlabNoToken, gitlabHttps]) forge.gitlab('group/tool', RELEASES);
  env.DD_RELEASE_NOTES_GITHUB_API_URL = dotcom.url;
  env.DD_RELEASE_NOTES_GITLAB_API_URL = `${dotcom.url}/api/v4`;
  env.DD_RELEASE_NOTES_GITHUB_HOSTS = `http://${ghe.host}, http://${gheNoToken.host}, ${gheHttps.host}`;
  env.DD_RELEASE_NOTES_GITHUB_HOST_TOKENS = `${ghe.host}=${GHE_TOKEN},${gheHttps.host}=${HTTPS_GHE_TOKEN}`;
  env.DD_RELEASE_NOTES_GITLAB_HOSTS = `http://${gitlab.host},http://${gitlabNoToken.host},${gitlabHttps.host}`;
  env.DD_RELEASE_NOTES_GITLAB_HOST_TOKENS = `${gitlab.host}=${SELF_HOSTED_TOKEN}`;
});

afterAll(async () => {
  await Promise.all(
    [dotcom, ghe, gheNoToken, gheHttps, gitlab, gitlabNoToken, gitlabHttps].map((forge) => forge?.close()),
  );
});

describeHubMatrix(
  'release notes: each host its own scheme and token',
  (client) => {
    let next = 1;
    const notes = async (source: string, image = 'acme/app') => {
      const n = next++;
      await client().hub.parts.containers.put(labelled(n, source, image));
      const response = await client().request(`/api/v1/containers/${id(n)}/release-notes`);
      expect(response.status).toBe(200);
      return (await response.json()) as { status: string; message: string; source: { url: string } | null };
    };
    const credentials = (forge: ReleaseApiServer) => forge.requests.map((request) => request.credential);

    it("sends github.com's token to github.com's API only", async () => {
      dotcom.requests.length = 0;
      expect(await notes('https://github.com/acme/app')).toMatchObject({ status: 'ok' });
      expect(credentials(dotcom)).toEqual([`Bearer ${GITHUB_TOKEN}`]);
    });

    it("sends an Enterprise host its own token, over the scheme the admin gave it, whatever the label's", async () => {
      ghe.requests.length = 0;
      // http:// was configured: a label saying https:// is still read over http, and the reverse is what the admin chose.
      for (const label of [`http://${ghe.host}/acme/app`, `https://${ghe.host}/acme/other`]) {
        const answer = await notes(label);
        expect(answer.source?.url, label).toMatch(new RegExp(`^http://${ghe.host}/acme/`));
      }
      expect(ghe.requests.map((request) => request.path)).toEqual([
        '/api/v3/repos/acme/app/releases?per_page=100',
        '/api/v3/repos/acme/other/releases?per_page=100',
      ]);
      expect(credentials(ghe)).toEqual([`Bearer ${GHE_TOKEN}`, `Bearer ${GHE_TOKEN}`]);
    });

    it("sends an Enterprise host without a token of its own no token at all, never github.com's", async () => {
      gheNoToken.requests.length = 0;
      expect(await notes(`http://${gheNoToken.host}/acme/app`)).toMatchObject({ status: 'ok' });
      expect(credentials(gheNoToken)).toEqual([undefined]);
    });

    it('never lets a label downgrade an https host to http: no request reaches it in the clear', async () => {
      gheHttps.requests.length = 0;
      gitlabHttps.requests.length = 0;
      // The fixtures speak plain http: the hub's https requests fail their handshake, and that is all.
      const github = await notes(`http://${gheHttps.host}/acme/app`);
      expect(github).toMatchObject({ status: 'upstream-error', source: { url: `https://${gheHttps.host}/acme/app` } });
      const self = await notes(`http://${gitlabHttps.host}/group/tool`, 'group/tool');
      expect(self).toMatchObject({
        status: 'upstream-error',
        source: { url: `https://${gitlabHttps.host}/group/tool` },
      });
      expect(gheHttps.requests).toEqual([]);
      expect(gitlabHttps.requests).toEqual([]);
    });

    it("sends a self-hosted GitLab its own token or none, never gitlab.com's", async () => {
      for (const forge of [dotcom, gitlab, gitlabNoToken]) forge.requests.length = 0;
      expect(await notes('https://gitlab.com/group/tool', 'group/tool')).toMatchObject({ status: 'ok' });
      expect(await notes(`http://${gitlab.host}/group/tool`, 'group/tool')).toMatchObject({ status: 'ok' });
      expect(await notes(`https://${gitlabNoToken.host}/group/tool`, 'group/tool')).toMatchObject({ status: 'ok' });
      expect(credentials(dotcom)).toEqual([GITLAB_TOKEN]);
      expect(credentials(gitlab)).toEqual([SELF_HOSTED_TOKEN]);
      expect(credentials(gitlabNoToken)).toEqual([undefined]);
    });

    it('shows no host token in GET /api/v1/server', async () => {
      const server = await (await client().request('/api/v1/server')).text();
      for (const token of [GHE_TOKEN, HTTPS_GHE_TOKEN, SELF_HOSTED_TOKEN]) expect(server).not.toContain(token);
    });
  },
  env,
);
