import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkImage, type ImageCheckInput } from '../../hub/src/checks/check-image';
import { FleetLookups } from '../../hub/src/checks/fleet-lookups';
import { createGenericProvider } from '../../hub/src/registries/generic';
import { RegistryService } from '../../hub/src/registries/registry-service';
import type { RegistryRequestEvent } from '../../shared/registry/registry-transport';
import { compileTagPolicy } from '../../shared/tags';
import { type PushedImage, pushImage } from '../support/registry/push-image';
import { startRegistry, type TestRegistry } from '../support/registry/start-registry';

const amd64 = { os: 'linux', architecture: 'amd64' };
const noPolicy = compileTagPolicy({});

describe('fleet-wide registry checks against a real registry', () => {
  let registry: TestRegistry;
  let requests: RegistryRequestEvent[];
  let lookups: FleetLookups;
  let latestOld: PushedImage;
  let latestNow: PushedImage;
  let multiOld: PushedImage;
  let multiNow: PushedImage;

  beforeAll(async () => {
    registry = await startRegistry({ variant: 'plain' });
    await pushImage(registry, { repository: 'app/api', tags: ['1.0.0', '1.1.0'], created: '2026-01-01T00:00:00Z' });
    await pushImage(registry, {
      repository: 'app/api',
      tags: ['2.0.0'],
      layerSeed: 'two',
      created: '2026-03-01T00:00:00Z',
    });
    latestOld = await pushImage(registry, { repository: 'app/web', tags: ['latest'], layerSeed: 'old' });
    latestNow = await pushImage(registry, {
      repository: 'app/web',
      tags: ['latest'],
      layerSeed: 'new',
      created: '2026-04-01T00:00:00Z',
    });
    const platforms = [amd64, { os: 'linux', architecture: 'arm64' }];
    multiOld = await pushImage(registry, {
      repository: 'app/multi',
      tags: ['stable'],
      platforms,
      attestations: true,
      layerSeed: 'm1',
    });
    multiNow = await pushImage(registry, {
      repository: 'app/multi',
      tags: ['stable'],
      platforms,
      attestations: true,
      layerSeed: 'm2',
    });
    requests = [];
    const service = new RegistryService({
      providers: [],
      builtIn: [],
      fallback: createGenericProvider(new Set()),
      onRequest: (event) => requests.push(event),
    });
    lookups = new FleetLookups(service);
  });
  afterAll(() => registry.stop());

  const input = (over: Partial<ImageCheckInput> & Pick<ImageCheckInput, 'repository' | 'tag'>): ImageCheckInput => ({
    registry: registry.host,
    platform: amd64,
    localDigests: [],
    tagPolicy: noPolicy,
    ...over,
  });

  it('asks each distinct question once per cycle for a fleet of 300 containers', async () => {
    lookups.beginCycle();
    requests.length = 0;
    const fleet = [
      ...Array.from({ length: 100 }, () => input({ repository: 'app/api', tag: '1.0.0' })),
      ...Array.from({ length: 100 }, () =>
        input({ repository: 'app/web', tag: 'latest', localDigests: [latestNow.digest] }),
      ),
      ...Array.from({ length: 100 }, () =>
        input({ repository: 'app/web', tag: 'latest', localDigests: [latestOld.digest] }),
      ),
    ];
    const results = await Promise.all(fleet.map((container) => checkImage(container, lookups)));

    expect(results[0]).toMatchObject({
      tagWatched: true,
      digestWatched: false,
      candidate: { tag: '2.0.0', semverDiff: 'major' },
    });
    expect(results[0]?.candidate?.publishedAt).toEqual({ date: '2026-03-01T00:00:00Z', trusted: false });
    expect(results[100]).toMatchObject({
      tagWatched: false,
      digestWatched: true,
      digestChanged: false,
      remoteDigest: latestNow.digest,
    });
    expect(results[200]).toMatchObject({
      digestChanged: true,
      digestPublishedAt: { date: '2026-04-01T00:00:00Z', trusted: false },
    });
    expect(results.every((result) => result.errors.length === 0)).toBe(true);

    const asked = requests
      .map((r) => `${r.method} ${r.path.replace(/blobs\/sha256:[a-f0-9]{64}$/, 'blobs/<config>')}`)
      .sort();
    expect(asked).toEqual(
      [
        'GET /v2/app/api/tags/list',
        'HEAD /v2/app/api/manifests/2.0.0',
        // the candidate's build date: its manifest, then its config blob
        `GET /v2/app/api/manifests/${results[0]?.candidate?.digest}`,
        'GET /v2/app/api/blobs/<config>',
        'HEAD /v2/app/web/manifests/latest',
        `GET /v2/app/web/manifests/${latestNow.digest}`,
        'GET /v2/app/web/blobs/<config>',
      ].sort(),
    );
  });

  it('asks only what can change in the next cycle: one request per distinct reference', async () => {
    lookups.beginCycle();
    requests.length = 0;
    await Promise.all([
      ...Array.from({ length: 50 }, () => checkImage(input({ repository: 'app/api', tag: '1.0.0' }), lookups)),
      ...Array.from({ length: 50 }, () =>
        checkImage(input({ repository: 'app/web', tag: 'latest', localDigests: [latestOld.digest] }), lookups),
      ),
    ]);
    expect(requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /v2/app/api/tags/list',
      'HEAD /v2/app/web/manifests/latest',
    ]);
  });

  it('lets scheduled watchers join a cycle begun moments ago, while "watch now" asks afresh', async () => {
    lookups.beginCycle();
    requests.length = 0;
    await checkImage(input({ repository: 'app/api', tag: '1.0.0' }), lookups);
    // A second watcher on the same schedule joins: nothing is asked again.
    lookups.beginCycle({ sharedWithinMs: 60_000 });
    await checkImage(input({ repository: 'app/api', tag: '1.0.0' }), lookups);
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v2/app/api/tags/list']);
    // A requested cycle starts afresh.
    lookups.beginCycle();
    await checkImage(input({ repository: 'app/api', tag: '1.0.0' }), lookups);
    expect(requests).toHaveLength(2);
  });

  it('compares multi-arch images like with like', async () => {
    lookups.beginCycle();
    const check = (over: Partial<ImageCheckInput>) =>
      checkImage(input({ repository: 'app/multi', tag: 'stable', ...over }), lookups);
    // Pulled by the current index digest: up to date.
    expect((await check({ localDigests: [multiNow.digest] })).digestChanged).toBe(false);
    // Pulled by its platform digest (podman, or `image@sha256` of the platform): still up to date.
    expect((await check({ localDigests: [multiNow.platformDigests['linux/amd64'] as string] })).digestChanged).toBe(
      false,
    );
    // An old index digest, but the local image is the current one for this platform (Docker's id is the config digest).
    expect(
      (await check({ localDigests: [multiOld.digest], localImageId: multiNow.configDigests['linux/amd64'] }))
        .digestChanged,
    ).toBe(false);
    // An old index digest and an old image: a real update.
    expect(
      (await check({ localDigests: [multiOld.digest], localImageId: multiOld.configDigests['linux/amd64'] }))
        .digestChanged,
    ).toBe(true);
    // No local digest at all (a locally built image): nothing to compare, so no claim either way.
    expect((await check({ localDigests: [] })).digestChanged).toBe(false);
  });

  it("with internetlessMode asks no provider's web API for push dates, only the registry; off again, it asks", async () => {
    // A provider with a web API beside its registry, as Docker Hub's and GHCR's: the calls it gets are counted.
    const webApiCalls: string[] = [];
    const provider = {
      ...createGenericProvider(new Set()),
      type: 'with-web-api',
      publishedAt: async (repository: string, tag: string) => {
        webApiCalls.push(`${repository}:${tag}`);
        return { date: '2026-03-02T00:00:00Z', trusted: true };
      },
    };
    let internetless = true;
    const offline = new FleetLookups(
      new RegistryService({ providers: [provider], builtIn: [], fallback: createGenericProvider(new Set()) }),
      Date.now,
      () => internetless,
    );
    offline.beginCycle();
    const during = await checkImage(input({ repository: 'app/api', tag: '1.0.0' }), offline);
    expect(during.candidate?.publishedAt).toEqual({ date: '2026-03-01T00:00:00Z', trusted: false });
    expect(webApiCalls).toEqual([]);
    internetless = false;
    offline.beginCycle();
    const after = await checkImage(input({ repository: 'app/api', tag: '1.0.0' }), offline);
    expect(after.candidate?.publishedAt).toEqual({ date: '2026-03-02T00:00:00Z', trusted: true });
    expect(webApiCalls).toEqual(['app/api:2.0.0']);
  });

  it('records an error on the affected containers only', async () => {
    lookups.beginCycle();
    const [missing, fine] = await Promise.all([
      checkImage(input({ repository: 'app/gone', tag: '1.0.0' }), lookups),
      checkImage(input({ repository: 'app/api', tag: '1.1.0' }), lookups),
    ]);
    expect(missing.errors).toEqual([{ phase: 'tags', kind: 'not-found', message: expect.stringContaining('404') }]);
    expect(fine).toMatchObject({ errors: [], candidate: { tag: '2.0.0' } });
  });
});
