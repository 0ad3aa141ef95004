/**
 * Malformed registry content: manifests that are not JSON or of neither kind, bodies that do not
 * match their digest, wrong content types, HEAD without a digest, oversized bodies, bad config
 * blobs, over-deep index nesting and indexes of attestations only.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  distribution,
  type FakeServer,
  OCI_INDEX,
  OCI_MANIFEST,
  reply,
  sha256,
  startFakeServer,
} from '../../support/fixtures/fake-registry';
import { errorOf, hostileClient, LINUX_AMD64, timed } from './hostile-helpers';

describe('malformed content', () => {
  let registry: FakeServer;
  const store = distribution();
  const image = store.putImage('app', { created: '2026-03-04T05:06:07Z', os: 'linux', architecture: 'amd64' }, ['1.0']);
  const manifestBody = JSON.stringify({
    schemaVersion: 2,
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: image.configDigest, size: 2 },
    layers: [],
  });

  beforeAll(async () => {
    registry = await startFakeServer();
  });
  afterAll(() => registry.close());

  /** Serves `body` for every manifest GET (and HEAD), with the given headers. */
  function serve(body: string, headers: Record<string, string> = { 'content-type': OCI_MANIFEST }): void {
    registry.reset((req, res) => {
      if (req.method === 'HEAD') {
        res.writeHead(200, headers);
        return void res.end();
      }
      reply(res, 200, body, headers);
    });
  }

  it('a manifest that is not JSON, truncated, or of neither kind is a protocol error', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    for (const body of [
      '<html>oops</html>',
      manifestBody.slice(0, 40),
      '',
      'null',
      '"manifest"',
      '[]',
      deep,
      JSON.stringify({ schemaVersion: 1, name: 'app', tag: '1.0', fsLayers: [] }),
      JSON.stringify({ schemaVersion: 2 }),
      JSON.stringify({ schemaVersion: 2, manifests: 'all of them' }),
      JSON.stringify({ schemaVersion: 2, manifests: [{ digest: 'sha256:nothex', platform: { os: 'linux' } }] }),
      JSON.stringify({ schemaVersion: 2, config: { digest: image.configDigest } }),
    ]) {
      serve(body);
      const error = await errorOf(hostileClient(registry.host).client.getManifest('app', '1.0'));
      expect({ body: body.slice(0, 50), kind: error.kind }).toEqual({ body: body.slice(0, 50), kind: 'protocol' });
    }
  });

  it('a manifest fetched by digest whose body hashes differently is a protocol error', async () => {
    serve(manifestBody);
    const wanted = sha256(`${manifestBody} `);
    const error = await errorOf(hostileClient(registry.host).client.getManifest('app', wanted));
    expect(error.kind).toBe('protocol');
    expect(error.message).toContain('does not match its digest');
    // The same body fetched by its true digest is fine.
    expect((await hostileClient(registry.host).client.getManifest('app', sha256(manifestBody))).kind).toBe('manifest');
  });

  it('a wrong or missing content type does not matter: the body is read by its shape', async () => {
    const index = JSON.stringify({
      schemaVersion: 2,
      manifests: [{ digest: image.digest, platform: { os: 'linux', architecture: 'amd64' } }],
    });
    for (const headers of [{ 'content-type': 'text/plain' }, { 'content-type': OCI_INDEX }, {}]) {
      serve(manifestBody, headers);
      const manifest = await hostileClient(registry.host).client.getManifest('app', '1.0');
      expect(manifest).toMatchObject({ kind: 'manifest', digest: sha256(manifestBody) });
      serve(index, headers);
      expect(await hostileClient(registry.host).client.getManifest('app', '1.0')).toMatchObject({
        kind: 'index',
        digest: sha256(index),
      });
    }
  });

  it('a HEAD without (or with a malformed) Docker-Content-Digest falls back to GET and hashes the body', async () => {
    for (const digestHeader of [undefined, 'sha256:XYZ', `md5:${'0'.repeat(32)}`, `sha256:${'A'.repeat(64)}`]) {
      serve(manifestBody, {
        'content-type': OCI_MANIFEST,
        ...(digestHeader !== undefined && { 'docker-content-digest': digestHeader }),
      });
      const head = await hostileClient(registry.host).client.headManifest('app', '1.0');
      expect(head).toEqual({ digest: sha256(manifestBody), mediaType: OCI_MANIFEST });
      expect(registry.requests.map((r) => r.method)).toEqual(['HEAD', 'GET']);
    }
  });

  it('a 10 MB manifest announced by Content-Length is refused without reading it', async () => {
    registry.reset((_req, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': OCI_MANIFEST, 'content-length': String(10 * 1024 * 1024) });
      res.write(`{"schemaVersion":2,"pad":"${'x'.repeat(64 * 1024)}`); // and never the rest
    });
    const { value: error, ms } = await timed(() =>
      errorOf(hostileClient(registry.host, { timeoutMs: 2_000 }).client.getManifest('app', '1.0')),
    );
    expect(error.kind).toBe('protocol');
    expect(error.message).toContain('larger than');
    expect(ms).toBeLessThan(500); // long before the 2 s deadline: the rest was never awaited
  });

  it('an oversized manifest without Content-Length is a protocol error once read', async () => {
    registry.reset((_req, res) => void res.end(`{"schemaVersion":2,"pad":"${'x'.repeat(5 * 1024 * 1024)}"}`));
    expect(
      (await errorOf(hostileClient(registry.host, { timeoutMs: 5_000 }).client.getManifest('app', '1.0'))).kind,
    ).toBe('protocol');
  });

  it('a config blob that mismatches its digest, is not a config, is too large or is badly named is a protocol error', async () => {
    const { client } = hostileClient(registry.host);
    for (const body of ['{"created":"tampered"}', 'not json', 'null', '{"created":42}']) {
      registry.reset((_req, res) => reply(res, 200, body));
      const digest = body === '{"created":"tampered"}' ? image.configDigest : sha256(body);
      expect({ body, kind: (await errorOf(client.getImageConfig('app', digest))).kind }).toEqual({
        body,
        kind: 'protocol',
      });
    }
    registry.reset((_req, res) => {
      res.writeHead(200, { 'content-length': String(9 * 1024 * 1024) });
      res.write('{');
    });
    expect((await errorOf(client.getImageConfig('app', image.configDigest))).kind).toBe('protocol');
    registry.reset(store.handler);
    for (const digest of ['sha256:../../etc/passwd', `sha512:${'a'.repeat(128)}`, 'latest']) {
      expect((await errorOf(client.getImageConfig('app', digest))).kind).toBe('protocol');
    }
    expect(registry.requests).toEqual([]);
  });

  it('follows indexes nested 3 deep, and refuses a 4th level', async () => {
    const nest = (levels: number, tag: string) => {
      let digest = image.digest;
      for (let i = 0; i < levels; i++) {
        const platform = i === 0 ? { platform: { os: 'linux', architecture: 'amd64' } } : {};
        digest = store.putManifest(
          'app',
          { schemaVersion: 2, mediaType: OCI_INDEX, manifests: [{ digest, ...platform }] },
          [tag],
          OCI_INDEX,
        );
      }
    };
    nest(3, 'three');
    nest(4, 'four');
    registry.reset(store.handler);
    const { client } = hostileClient(registry.host);
    expect(await client.resolvePlatform('app', 'three', LINUX_AMD64)).toEqual({
      manifestDigest: image.digest,
      configDigest: image.configDigest,
    });
    const error = await errorOf(client.resolvePlatform('app', 'four', LINUX_AMD64));
    expect(error.kind).toBe('protocol');
    expect(error.message).toContain('nested too deeply');
  });

  it('an index of attestations only has no image for any platform', async () => {
    const attestation = (annotated: boolean) => ({
      mediaType: OCI_MANIFEST,
      digest: image.digest,
      ...(annotated
        ? {
            annotations: { 'vnd.docker.reference.type': 'attestation-manifest' },
            platform: { os: 'linux', architecture: 'amd64' },
          }
        : { platform: { os: 'unknown', architecture: 'unknown' } }),
    });
    store.putManifest(
      'app',
      { schemaVersion: 2, mediaType: OCI_INDEX, manifests: [attestation(true), attestation(false)] },
      ['att'],
      OCI_INDEX,
    );
    registry.reset(store.handler);
    const { client } = hostileClient(registry.host);
    for (const platform of [
      LINUX_AMD64,
      { os: 'linux', architecture: 'arm64' },
      { os: 'unknown', architecture: 'unknown' },
    ]) {
      expect((await errorOf(client.resolvePlatform('app', 'att', platform))).kind).toBe('not-found');
    }
  });
});
