import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteManifest, pushImage, pushManyTags } from './push-image';
import { startRegistry, type TestRegistry } from './start-registry';

// Spelled out rather than imported: these tests check the test bed, including the helper's constants.
const ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
].join(', ');
const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const AMD64 = { os: 'linux', architecture: 'amd64' };
const ARM64 = { os: 'linux', architecture: 'arm64', variant: 'v8' };

interface IndexBody {
  mediaType: string;
  manifests: {
    mediaType: string;
    digest: string;
    platform?: { os: string; architecture: string };
    annotations?: Record<string, string>;
  }[];
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

function sha256(bytes: ArrayBuffer): string {
  return `sha256:${createHash('sha256').update(Buffer.from(bytes)).digest('hex')}`;
}

/** Asks the token server the way a client would after a challenge; anonymous when no user is given. */
async function fetchToken(registry: TestRegistry, scope: string, user?: string): Promise<string> {
  const url = `${registry.tokenServer!.url}?service=test-registry&scope=${encodeURIComponent(scope)}`;
  const password = user === undefined ? undefined : registry.users[user];
  const res = await fetch(
    url,
    password === undefined || user === undefined ? {} : { headers: { Authorization: basic(user, password) } },
  );
  expect(res.status).toBe(200);
  const body = (await res.json()) as { token?: string; access_token?: string };
  return body.token ?? body.access_token ?? '';
}

describe('plain registry', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry({ variant: 'plain' });
  });
  afterAll(() => registry?.stop());

  it('answers /v2/ on 127.0.0.1 without auth', async () => {
    expect(registry.url).toBe(`http://${registry.host}`);
    expect(registry.host).toMatch(/^127\.0\.0\.1:\d+$/);
    const res = await fetch(`${registry.url}/v2/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('docker-distribution-api-version')).toBe('registry/2.0');
  });

  it('serves a pushed single-platform image by tag with its digest, but only to a client that accepts OCI', async () => {
    const pushed = await pushImage(registry, {
      repository: 'team/app',
      tags: ['1.0', 'latest'],
      created: '2024-01-02T03:04:05Z',
    });
    expect(pushed.mediaType).toBe(OCI_MANIFEST);
    expect(pushed.platformDigests).toEqual({ 'linux/amd64': pushed.digest });

    const res = await fetch(`${registry.url}/v2/team/app/manifests/1.0`, { headers: { Accept: ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(OCI_MANIFEST);
    expect(res.headers.get('docker-content-digest')).toBe(pushed.digest);
    const manifest = await res.arrayBuffer();
    expect(sha256(manifest)).toBe(pushed.digest);
    const configDigest = (JSON.parse(Buffer.from(manifest).toString('utf8')) as { config: { digest: string } }).config
      .digest;
    expect(configDigest).toBe(pushed.configDigests['linux/amd64']);
    const config = await fetch(`${registry.url}/v2/team/app/blobs/${configDigest}`).then((r) => r.json());
    expect(config).toMatchObject({ created: '2024-01-02T03:04:05Z', os: 'linux', architecture: 'amd64' });

    const head = await fetch(`${registry.url}/v2/team/app/manifests/latest`, {
      method: 'HEAD',
      headers: { Accept: ACCEPT },
    });
    expect(head.headers.get('docker-content-digest')).toBe(pushed.digest);
    const dockerOnly = await fetch(`${registry.url}/v2/team/app/manifests/1.0`, {
      headers: { Accept: 'application/vnd.docker.distribution.manifest.v2+json' },
    });
    expect(dockerOnly.status).toBe(404);
    expect(await dockerOnly.json()).toMatchObject({ errors: [{ code: 'MANIFEST_UNKNOWN' }] });
  });

  it('lists every platform and buildx-style attestation in a multi-arch index', async () => {
    const pushed = await pushImage(registry, {
      repository: 'team/multi',
      tags: ['2.0'],
      platforms: [AMD64, ARM64],
      attestations: true,
    });
    const res = await fetch(`${registry.url}/v2/team/multi/manifests/2.0`, { headers: { Accept: ACCEPT } });
    expect(res.headers.get('docker-content-digest')).toBe(pushed.digest);
    const index = (await res.json()) as IndexBody;
    expect(index.mediaType).toBe(OCI_INDEX);
    expect(index.manifests.map((m) => [m.digest, `${m.platform?.os}/${m.platform?.architecture}`])).toEqual([
      [pushed.platformDigests['linux/amd64'], 'linux/amd64'],
      [pushed.platformDigests['linux/arm64/v8'], 'linux/arm64'],
      [pushed.attestationDigests['linux/amd64'], 'unknown/unknown'],
      [pushed.attestationDigests['linux/arm64/v8'], 'unknown/unknown'],
    ]);
    expect(index.manifests[2]?.annotations).toEqual({
      'vnd.docker.reference.digest': pushed.platformDigests['linux/amd64'],
      'vnd.docker.reference.type': 'attestation-manifest',
    });
    for (const child of index.manifests) {
      const fetched = await fetch(`${registry.url}/v2/team/multi/manifests/${child.digest}`, {
        headers: { Accept: ACCEPT },
      });
      expect(fetched.headers.get('docker-content-digest')).toBe(child.digest);
    }
  });

  it('nests an index, writes Docker media types, and changes digests with the layer seed', async () => {
    const nested = await pushImage(registry, {
      repository: 'team/nested',
      tags: ['1'],
      platforms: [AMD64, ARM64],
      nestedIndex: true,
    });
    const get = (ref: string) =>
      fetch(`${registry.url}/v2/team/nested/manifests/${ref}`, { headers: { Accept: ACCEPT } });
    const top = (await get('1').then((r) => r.json())) as IndexBody;
    expect(top.manifests.map((m) => m.mediaType)).toEqual([OCI_INDEX]);
    const inner = (await get(top.manifests[0]!.digest).then((r) => r.json())) as IndexBody;
    expect(inner.manifests.map((m) => m.digest)).toEqual([
      nested.platformDigests['linux/amd64'],
      nested.platformDigests['linux/arm64/v8'],
    ]);
    expect(nested.digest).not.toBe(top.manifests[0]!.digest);

    const docker = await pushImage(registry, {
      repository: 'team/docker',
      tags: ['1'],
      platforms: [AMD64, ARM64],
      format: 'docker',
    });
    expect(docker.mediaType).toBe('application/vnd.docker.distribution.manifest.list.v2+json');
    const rebuilt = await pushImage(registry, {
      repository: 'team/docker',
      tags: ['1'],
      platforms: [AMD64, ARM64],
      format: 'docker',
      layerSeed: 'b',
    });
    expect(rebuilt.digest).not.toBe(docker.digest);
    expect(rebuilt.platformDigests['linux/amd64']).not.toBe(docker.platformDigests['linux/amd64']);
    const res = await fetch(`${registry.url}/v2/team/docker/manifests/1`, {
      method: 'HEAD',
      headers: { Accept: ACCEPT },
    });
    expect(res.headers.get('docker-content-digest')).toBe(rebuilt.digest);
  });

  it('deletes a manifest by digest, and its tags with it', async () => {
    const pushed = await pushImage(registry, { repository: 'team/gone', tags: ['1'] });
    await deleteManifest(registry, 'team/gone', pushed.digest);
    const res = await fetch(`${registry.url}/v2/team/gone/manifests/1`, { headers: { Accept: ACCEPT } });
    expect(res.status).toBe(404);
    expect(await fetch(`${registry.url}/v2/team/gone/tags/list`).then((r) => r.json())).toEqual({
      name: 'team/gone',
      tags: null,
    });
  });

  it('takes 1,000 tags from pushManyTags and lists them all, unsorted and unpaged', async () => {
    const tags = Array.from({ length: 1_000 }, (_, i) => `1.${i}.0`);
    const started = performance.now();
    const pushed = await pushManyTags(registry, 'team/many', tags);
    expect(performance.now() - started).toBeLessThan(20_000);

    const res = await fetch(`${registry.url}/v2/team/many/tags/list?n=10`);
    expect(res.headers.get('link')).toBeNull();
    const listed = ((await res.json()) as { tags: string[] }).tags;
    expect(listed).toHaveLength(1_000);
    expect([...listed].sort()).toEqual([...tags].sort());
    const head = await fetch(`${registry.url}/v2/team/many/manifests/1.999.0`, {
      method: 'HEAD',
      headers: { Accept: ACCEPT },
    });
    expect(head.headers.get('docker-content-digest')).toBe(pushed.digest);
  });

  it('stops: the process is gone and its temp dir removed', async () => {
    const other = await startRegistry({ variant: 'plain' });
    await other.stop();
    expect(existsSync(dirname(other.logFile))).toBe(false);
    await expect(fetch(`${other.url}/v2/`)).rejects.toThrow();
  });
});

describe('basic-auth registry', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry({ variant: 'basic', users: { alice: 's3cret', bob: 'hunter2' } });
  });
  afterAll(() => registry?.stop());

  it('challenges with Basic, rejects a wrong password and serves a pushed image to a right one', async () => {
    const anonymous = await fetch(`${registry.url}/v2/`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="test-registry"');

    const pushed = await pushImage(registry, { repository: 'private/app', tags: ['1.0'] });
    const url = `${registry.url}/v2/private/app/manifests/1.0`;
    expect((await fetch(url, { headers: { Accept: ACCEPT, Authorization: basic('alice', 'wrong') } })).status).toBe(
      401,
    );
    expect((await fetch(url, { headers: { Accept: ACCEPT, Authorization: basic('mallory', 's3cret') } })).status).toBe(
      401,
    );
    const res = await fetch(url, { headers: { Accept: ACCEPT, Authorization: basic('bob', 'hunter2') } });
    expect(res.status).toBe(200);
    expect(res.headers.get('docker-content-digest')).toBe(pushed.digest);
  });
});

describe('token-auth registry', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry({ variant: 'token' });
  });
  afterAll(() => registry?.stop());

  it('challenges with Bearer, naming the realm, the service and the scope a request needs', async () => {
    const ping = await fetch(`${registry.url}/v2/`);
    expect(ping.status).toBe(401);
    expect(ping.headers.get('www-authenticate')).toBe(
      `Bearer realm="${registry.tokenServer!.url}",service="test-registry"`,
    );
    const pull = await fetch(`${registry.url}/v2/some/repo/manifests/1`, { headers: { Accept: ACCEPT } });
    expect(pull.headers.get('www-authenticate')).toContain('scope="repository:some/repo:pull"');
  });

  it('lets anyone pull with a token, lets only users push, and counts token requests', async () => {
    registry.tokenServer!.requests = 0;
    const pushed = await pushImage(registry, { repository: 'library/app', tags: ['1.0'] });
    expect(registry.tokenServer!.requests).toBe(1);
    expect(registry.tokenServer!.log.at(-1)).toEqual({
      user: 'tester',
      scopes: ['repository:library/app:pull,push'],
      status: 200,
    });

    const anonymous = await fetchToken(registry, 'repository:library/app:pull,push');
    const headers = { Accept: ACCEPT, Authorization: `Bearer ${anonymous}` };
    const pull = await fetch(`${registry.url}/v2/library/app/manifests/1.0`, { headers });
    expect(pull.status).toBe(200);
    expect(pull.headers.get('docker-content-digest')).toBe(pushed.digest);
    const push = await fetch(`${registry.url}/v2/library/app/blobs/uploads/`, { method: 'POST', headers });
    expect(push.status).toBe(401);
    expect(push.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(registry.tokenServer!.requests).toBe(2);

    const wrong = await fetch(`${registry.tokenServer!.url}?service=test-registry&scope=repository:library/app:pull`, {
      headers: { Authorization: basic('tester', 'wrong') },
    });
    expect(wrong.status).toBe(401);
  });

  it('misbehaves on request: 500, no expires_in, access_token only', async () => {
    const tokenServer = registry.tokenServer!;
    const url = `${tokenServer.url}?service=test-registry&scope=repository:library/app:pull`;
    try {
      tokenServer.mode = 'fail-500';
      expect((await fetch(url)).status).toBe(500);
      tokenServer.mode = 'no-expires-in';
      expect(Object.keys(await fetch(url).then((r) => r.json())).sort()).toEqual([
        'access_token',
        'issued_at',
        'token',
      ]);
      tokenServer.mode = 'access-token-only';
      const body = (await fetch(url).then((r) => r.json())) as { access_token: string };
      expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'issued_at']);
      const pull = await fetch(`${registry.url}/v2/library/app/tags/list`, {
        headers: { Authorization: `Bearer ${body.access_token}` },
      });
      expect(pull.status).toBe(200);
    } finally {
      tokenServer.mode = 'normal';
    }
  });
});

describe('TLS registry', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry({ variant: 'tls' });
  });
  afterAll(() => registry?.stop());

  it('is trusted only with its CA, and takes pushes over https', async () => {
    expect(registry.url).toBe(`https://${registry.host}`);
    await expect(fetch(`${registry.url}/v2/`)).rejects.toThrow();

    const pushed = await pushImage(registry, { repository: 'secure/app', tags: ['1.0'], platforms: [AMD64, ARM64] });
    // undici comes with the dev tooling (miniflare); its Agent is how Node 20's global fetch takes a CA.
    const { Agent } = await import('undici');
    const dispatcher = new Agent({ connect: { ca: readFileSync(registry.caFile!, 'utf8') } });
    try {
      const init = { headers: { Accept: ACCEPT }, dispatcher } as RequestInit;
      const res = await fetch(`${registry.url}/v2/secure/app/manifests/1.0`, init);
      expect(res.status).toBe(200);
      expect(res.headers.get('docker-content-digest')).toBe(pushed.digest);
    } finally {
      await dispatcher.close();
    }
  });
});
