import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOneShotRegistryFetchFactory,
  createRegistryFetchFactory,
} from '../../hub/src/adapter/node/registry-fetch';
import type { ProviderConnection } from '../../hub/src/registries/registry-provider';
import { createRegistryClient } from '../../shared/registry/create-registry-client';
import type { BasicCredentials } from '../../shared/registry/registry-auth';
import { RegistryError } from '../../shared/registry/registry-error';
import type { RegistryFetch, RegistryRequestEvent } from '../../shared/registry/registry-transport';
import { createConcurrencyLimiter } from '../../shared/registry/request-limiter';
import { pushImage, pushManyTags } from '../support/registry/push-image';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

type FetchFactory = () => (connection: ProviderConnection) => RegistryFetch;

/** The hub's registry fetch (Node's fetch) and dockwatch check's (node:http): the same registries, the same answers. */
const FETCHES: { name: string; factory: FetchFactory }[] = [
  { name: "Node's fetch (the hub)", factory: createRegistryFetchFactory },
  { name: 'node:http (dockwatch check)', factory: createOneShotRegistryFetchFactory },
];

function clientWith(factory: FetchFactory, registry: TestRegistry, credentials?: BasicCredentials) {
  const requests: RegistryRequestEvent[] = [];
  const client = createRegistryClient({
    registry: registry.host,
    credentials,
    limiter: createConcurrencyLimiter(8),
    ...(registry.caFile && { scheme: 'https' as const }),
    fetch: factory()({ ...(registry.caFile && { caFile: registry.caFile }), concurrency: 8 }),
    onRequest: (event) => requests.push(event),
  });
  return { client, requests };
}

async function errorOf(promise: Promise<unknown>): Promise<RegistryError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RegistryError) return error;
    throw error;
  }
  throw new Error('expected a RegistryError');
}

describe.each(FETCHES)('over $name', ({ factory }) => {
  const clientFor = (registry: TestRegistry, credentials?: BasicCredentials) =>
    clientWith(factory, registry, credentials);

  describe('registry client against a real plain registry', () => {
    let registry: TestRegistry;
    const manyTags = Array.from({ length: 2000 }, (_, i) => `1.${Math.floor(i / 100)}.${i % 100}`);
    beforeAll(async () => {
      registry = await startRegistry({ variant: 'plain' });
      // 2,000 manifest PUTs: 4 s alone, past 30 s once with five test files sharing the two cores,
      // so they are the setup's, with its own limit, not the listing test's.
      await pushManyTags(registry, 'many/tags', manyTags);
    }, 120_000);
    afterAll(() => registry.stop());

    it('reads the digest of OCI and Docker v2 images with one HEAD', async () => {
      for (const format of ['oci', 'docker'] as const) {
        const pushed = await pushImage(registry, {
          repository: `single/${format}`,
          tags: ['1.0.0'],
          format,
          created: '2026-01-02T03:04:05Z',
        });
        const { client, requests } = clientFor(registry);
        expect(await client.headManifest(`single/${format}`, '1.0.0')).toEqual({
          digest: pushed.digest,
          mediaType: pushed.mediaType,
        });
        expect(requests.map((r) => r.method)).toEqual(['HEAD']);
        const platform = await client.resolvePlatform(`single/${format}`, '1.0.0', {
          os: 'linux',
          architecture: 'amd64',
        });
        expect(platform.manifestDigest).toBe(pushed.digest);
        expect((await client.getImageConfig(`single/${format}`, platform.configDigest)).created).toBe(
          '2026-01-02T03:04:05Z',
        );
      }
    });

    it('selects platforms through nested indexes, skipping attestations', async () => {
      const platforms = [
        { os: 'linux', architecture: 'amd64' },
        { os: 'linux', architecture: 'arm64', variant: 'v8' },
        { os: 'linux', architecture: 'arm', variant: 'v7' },
      ];
      for (const nestedIndex of [false, true]) {
        const repository = `multi/nested-${nestedIndex}`;
        const pushed = await pushImage(registry, {
          repository,
          tags: ['2.0'],
          platforms,
          attestations: true,
          nestedIndex,
        });
        const { client } = clientFor(registry);
        expect((await client.headManifest(repository, '2.0')).digest).toBe(pushed.digest);
        for (const [key, digest] of Object.entries(pushed.platformDigests)) {
          const [os, architecture, variant] = key.split('/') as [string, string, string | undefined];
          const image = await client.resolvePlatform(repository, '2.0', {
            os,
            architecture,
            ...(variant && { variant }),
          });
          expect(image.manifestDigest).toBe(digest);
          expect(image.configDigest).toBe(pushed.configDigests[key]);
        }
        const arm64 = await client.resolvePlatform(repository, '2.0', { os: 'linux', architecture: 'arm64' });
        expect(arm64.manifestDigest).toBe(pushed.platformDigests['linux/arm64/v8']);
        expect(
          (await errorOf(client.resolvePlatform(repository, '2.0', { os: 'windows', architecture: 'amd64' }))).kind,
        ).toBe('not-found');
      }
    });

    it('lists every tag of a 2,000-tag repository and reports unknown names as not-found', async () => {
      const { client } = clientFor(registry);
      expect((await client.listTags('many/tags')).sort()).toEqual([...manyTags].sort());
      expect((await client.listTags('many/tags', { maxTags: 10 })).length).toBe(10);
      expect((await errorOf(client.headManifest('many/tags', 'no-such-tag'))).kind).toBe('not-found');
      expect((await errorOf(client.listTags('no/such-repo'))).kind).toBe('not-found');
    });
  });

  describe('registry client against a real basic-auth registry', () => {
    let registry: TestRegistry;
    beforeAll(async () => {
      registry = await startRegistry({ variant: 'basic', users: { alice: 's3cret' } });
      await pushImage(registry, { repository: 'private/app', tags: ['1.0.0'] });
    });
    afterAll(() => registry.stop());

    it('reads with the right password, and names refused or missing credentials', async () => {
      const { client, requests } = clientFor(registry, { username: 'alice', password: 's3cret' });
      expect(await client.listTags('private/app')).toEqual(['1.0.0']);
      await client.headManifest('private/app', '1.0.0');
      // The 401 is paid once; afterwards Basic is sent up front.
      expect(requests.filter((r) => r.status === 401)).toHaveLength(1);
      expect(
        (await errorOf(clientFor(registry, { username: 'alice', password: 'wrong' }).client.listTags('private/app')))
          .kind,
      ).toBe('credentials-rejected');
      expect((await errorOf(clientFor(registry).client.listTags('private/app'))).kind).toBe('auth-required');
    });
  });

  describe('registry client against a real token-auth registry (Docker Hub / GHCR style)', () => {
    let registry: TestRegistry;
    beforeAll(async () => {
      registry = await startRegistry({ variant: 'token', users: { bob: 'hunter2' } });
      await pushImage(registry, { repository: 'team/api', tags: ['1.0.0', '1.1.0'] });
      await pushImage(registry, { repository: 'team/web', tags: ['3.0.0'] });
    });
    afterAll(() => registry.stop());

    it('pulls anonymously with tokens cached per scope, and asks proactively for new scopes', async () => {
      const tokenServer = registry.tokenServer!;
      const before = tokenServer.requests;
      const { client, requests } = clientFor(registry);
      expect((await client.listTags('team/api')).sort()).toEqual(['1.0.0', '1.1.0']);
      await client.headManifest('team/api', '1.1.0');
      await client.headManifest('team/api', '1.0.0');
      expect(tokenServer.requests - before).toBe(1);
      // Once the realm is known, a new repository gets its token before the first request: no 401.
      await client.headManifest('team/web', '3.0.0');
      expect(tokenServer.requests - before).toBe(2);
      expect(requests.filter((r) => r.status === 401)).toHaveLength(1);
    });

    it('shares one token request between concurrent lookups of a repository', async () => {
      const tokenServer = registry.tokenServer!;
      const before = tokenServer.requests;
      const { client } = clientFor(registry);
      await client.headManifest('team/web', '3.0.0'); // learn the realm
      const afterFirst = tokenServer.requests;
      await Promise.all(Array.from({ length: 10 }, () => client.headManifest('team/api', '1.0.0')));
      expect(tokenServer.requests - afterFirst).toBe(1);
      expect(afterFirst - before).toBe(1);
    });

    it('reports refused credentials and never falls back to anonymous', async () => {
      const tokenServer = registry.tokenServer!;
      const before = tokenServer.log.length;
      const error = await errorOf(
        clientFor(registry, { username: 'bob', password: 'wrong' }).client.listTags('team/api'),
      );
      expect(error.kind).toBe('credentials-rejected');
      expect(error.message).not.toContain('wrong');
      const asked = tokenServer.log.slice(before);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.every((request) => request.user === 'bob')).toBe(true);
      expect(await clientFor(registry, { username: 'bob', password: 'hunter2' }).client.listTags('team/web')).toEqual([
        '3.0.0',
      ]);
    });

    it('accepts access_token-only answers and a missing expires_in, and reports a failing token service', async () => {
      const tokenServer = registry.tokenServer!;
      try {
        tokenServer.mode = 'access-token-only';
        expect(await clientFor(registry).client.listTags('team/web')).toEqual(['3.0.0']);
        tokenServer.mode = 'no-expires-in';
        expect(await clientFor(registry).client.listTags('team/web')).toEqual(['3.0.0']);
        tokenServer.mode = 'fail-500';
        expect((await errorOf(clientFor(registry).client.listTags('team/web'))).kind).toBe('server');
      } finally {
        tokenServer.mode = 'normal';
      }
    });
  });

  describe('registry client against a real TLS registry with a private CA', () => {
    let registry: TestRegistry;
    beforeAll(async () => {
      registry = await startRegistry({ variant: 'tls' });
      await pushImage(registry, { repository: 'secure/app', tags: ['0.9.0'] });
    });
    afterAll(() => registry.stop());

    it('trusts the CA file of the connection, and refuses the certificate without it', async () => {
      expect(await clientFor(registry).client.listTags('secure/app')).toEqual(['0.9.0']);
      const withoutCa = createRegistryClient({
        registry: registry.host,
        scheme: 'https',
        limiter: createConcurrencyLimiter(2),
        fetch: factory()({ concurrency: 2 }),
      });
      const error = await errorOf(withoutCa.listTags('secure/app'));
      expect(['network', 'protocol']).toContain(error.kind);
    });
  });
});
