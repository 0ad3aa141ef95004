/**
 * Isolation: lookups of five repositories run at once on one client, and everything about one of
 * them hangs (its registry requests, or its token). The other four must complete promptly and
 * correctly; the hung one ends as a timeout; the limiter is never starved for good.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegistryClient } from '../../../shared/registry/registry-client';
import { createConcurrencyLimiter } from '../../../shared/registry/request-limiter';
import {
  bearerChallenge,
  distribution,
  type FakeServer,
  hang,
  OCI_INDEX,
  reply,
  startFakeServer,
} from '../../support/fixtures/fake-registry';
import { errorOf, hostileClient, LINUX_AMD64 } from './hostile-helpers';

const REPOSITORIES = ['team/r0', 'team/r1', 'team/hung', 'team/r3', 'team/r4'];
// Long enough that "long before" holds on a loaded 2-core machine (the other fetches take milliseconds;
// at 1 s, half of it was once not enough with the full suite and a soak sharing the cores).
const TIMEOUT_MS = 2_500;

describe('one hung repository does not hold up the others', () => {
  let registry: FakeServer;
  let tokens: FakeServer;
  const store = distribution();
  const expected = new Map(
    REPOSITORIES.map((repository, i) => {
      const image = store.putImage(repository, {
        created: `2026-01-0${i + 1}T00:00:00Z`,
        os: 'linux',
        architecture: 'amd64',
      });
      const manifests = [
        { mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: image.digest, platform: LINUX_AMD64 },
      ];
      const index = store.putManifest(
        repository,
        { schemaVersion: 2, mediaType: OCI_INDEX, manifests },
        ['latest'],
        OCI_INDEX,
      );
      return [repository, { index, ...image, created: `2026-01-0${i + 1}T00:00:00Z` }];
    }),
  );

  beforeAll(async () => {
    registry = await startFakeServer();
    tokens = await startFakeServer();
  });
  afterAll(async () => {
    await Promise.all([registry.close(), tokens.close()]);
  });

  /** HEAD the tag, walk to the platform image, read its config; resolves to what it found and when. */
  async function lookup(client: RegistryClient, repository: string, started: number) {
    const head = await client.headManifest(repository, 'latest');
    const platform = await client.resolvePlatform(repository, 'latest', LINUX_AMD64);
    const config = await client.getImageConfig(repository, platform.configDigest);
    return {
      index: head.digest,
      digest: platform.manifestDigest,
      created: config.created,
      ms: performance.now() - started,
    };
  }

  async function runAll(client: RegistryClient) {
    const started = performance.now();
    const results = await Promise.allSettled(REPOSITORIES.map((repository) => lookup(client, repository, started)));
    return new Map(REPOSITORIES.map((repository, i) => [repository, results[i]]));
  }

  function expectFourGood(
    results: Map<string, PromiseSettledResult<{ ms: number }> | undefined>,
    withinMs: number,
  ): number[] {
    const times: number[] = [];
    for (const repository of REPOSITORIES.filter((r) => r !== 'team/hung')) {
      const result = results.get(repository);
      const want = expected.get(repository);
      expect(result).toMatchObject({
        status: 'fulfilled',
        value: { index: want?.index, digest: want?.digest, created: want?.created },
      });
      const ms = result?.status === 'fulfilled' ? result.value.ms : Number.NaN;
      expect(ms).toBeLessThan(withinMs);
      times.push(Math.round(ms));
    }
    return times;
  }

  async function expectHungTimedOut(results: Map<string, PromiseSettledResult<unknown> | undefined>): Promise<void> {
    const hung = results.get('team/hung');
    expect(hung?.status).toBe('rejected');
    if (hung?.status === 'rejected') expect((await errorOf(Promise.reject(hung.reason))).kind).toBe('timeout');
  }

  it('with a limiter of 8, the four others finish long before the hung request times out', async () => {
    registry.reset((req, res, seen) =>
      seen.path.startsWith('/v2/team/hung/') ? hang(req, res, seen) : store.handler(req, res, seen),
    );
    const results = await runAll(hostileClient(registry.host, { timeoutMs: TIMEOUT_MS }).client);
    expectFourGood(results, TIMEOUT_MS / 2);
    await expectHungTimedOut(results);
  });

  it('with a limiter of 1, the others wait for the hung request deadline, then finish', async () => {
    registry.reset((req, res, seen) =>
      seen.path.startsWith('/v2/team/hung/') ? hang(req, res, seen) : store.handler(req, res, seen),
    );
    const { client } = hostileClient(registry.host, { timeoutMs: TIMEOUT_MS, limiter: createConcurrencyLimiter(1) });
    const results = await runAll(client);
    const times = expectFourGood(results, TIMEOUT_MS + 500);
    expect(Math.max(...times)).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    await expectHungTimedOut(results);
  });

  it('a token that never comes for one repository does not delay the tokens of the others', async () => {
    registry.reset((req, res, seen) => {
      const repository = /^\/v2\/(.+)\/(manifests|blobs)\//.exec(seen.path)?.[1];
      if (req.headers.authorization === `Bearer tok-${repository}`) return store.handler(req, res, seen);
      reply(res, 401, {}, bearerChallenge(`${tokens.origin}/token`, 'fixture', `repository:${repository}:pull`));
    });
    tokens.reset((req, res, seen) => {
      const repository = /^repository:(.+):pull$/.exec(new URLSearchParams(seen.query).get('scope') ?? '')?.[1];
      if (repository === 'team/hung') return hang(req, res, seen);
      reply(res, 200, { token: `tok-${repository}`, expires_in: 300 });
    });
    const results = await runAll(hostileClient(registry.host, { timeoutMs: TIMEOUT_MS }).client);
    expectFourGood(results, TIMEOUT_MS / 2);
    await expectHungTimedOut(results);
    // One token per repository, the hung one included, each asked once.
    expect(tokens.requests).toHaveLength(5);
  });
});
