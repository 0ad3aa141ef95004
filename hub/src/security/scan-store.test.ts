import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import type { ContainerScan } from '../../../shared/schemas/container-scan';
import { containerRecord } from '../../../test/support/container-fixture';
import { ScanStore } from './scan-store';

const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
const NONE = { critical: 0, high: 0, medium: 0, low: 0, unknown: 0 };

function scanOf(over: Partial<ContainerScan>): ContainerScan {
  return {
    containerId: 'old',
    status: 'scanned',
    scanner: 'osv',
    scannedAt: '2026-12-01T00:00:00.000Z',
    target: 'current',
    image: 'web:1.0.0',
    imageId: 'sha256:1',
    packages: 3,
    vulnerabilities: [],
    summary: { ...NONE, high: 1 },
    ...over,
  };
}

// containerRecord runs docker.io/library/web:1.0.0 with image id sha256:1; currentReference writes it `web:1.0.0`.
const recreated = (image: Partial<ReturnType<typeof containerRecord>['image']> = {}) => {
  const record = containerRecord({ id: 'new' });
  return { ...record, image: { ...record.image, ...image } };
};

describe('ScanStore: the same image keeps its result when a container is re-created (issue 28)', () => {
  it('serves an updated container the scan of the candidate it now runs, as its running image, without the delta', async () => {
    const store = new ScanStore(createStorage(), logger);
    const candidate = scanOf({
      target: 'candidate',
      delta: { against: { image: 'web:0.9.0', scannedAt: '2026-11-30T00:00:00.000Z' }, fixed: [], introduced: [] },
    });
    await store.put(candidate);
    const inherited = store.get('new', recreated());
    expect(inherited).toMatchObject({
      containerId: 'new',
      target: 'current',
      image: 'web:1.0.0',
      summary: { high: 1 },
    });
    expect(inherited).not.toHaveProperty('delta');
    expect(store.runningScan('new', recreated())).toMatchObject({ containerId: 'new', target: 'current' });
    // The same object while its source is: served JSON caches compare identity.
    expect(store.get('new', recreated())).toBe(inherited);
    // Without the record, only the container's own scan.
    expect(store.get('new')).toBeUndefined();
  });

  it('prefers the container own scan, and the newest scan of the image', async () => {
    const store = new ScanStore(createStorage(), logger);
    await store.put(scanOf({ containerId: 'a', scannedAt: '2026-12-01T00:00:00.000Z', summary: { ...NONE, low: 1 } }));
    await store.put(
      scanOf({ containerId: 'b', scannedAt: '2026-12-02T00:00:00.000Z', summary: { ...NONE, medium: 2 } }),
    );
    expect(store.get('new', recreated())?.summary).toMatchObject({ medium: 2 });
    await store.put(scanOf({ containerId: 'new', image: 'web:1.0.0', summary: NONE }));
    expect(store.get('new', recreated())?.summary).toEqual(NONE);
  });

  it('does not lend a scan to another image: a tag pushed again, another tag, or a failed scan', async () => {
    const store = new ScanStore(createStorage(), logger);
    await store.put(scanOf({}));
    expect(store.get('new', recreated({ id: 'sha256:2' }))).toBeUndefined();
    expect(store.get('new', recreated({ tag: { value: '2.0.0', semver: true } }))).toBeUndefined();
    const failedOnly = new ScanStore(createStorage(), logger);
    await failedOnly.put(scanOf({ status: 'failed', error: 'no database', summary: NONE }));
    expect(failedOnly.get('new', recreated())).toBeUndefined();
  });

  it('lends after a restart: the index is rebuilt from storage', async () => {
    const storage = createStorage();
    await new ScanStore(storage, logger).put(scanOf({ target: 'candidate' }));
    const reloaded = new ScanStore(storage, logger);
    await reloaded.load();
    expect(reloaded.get('new', recreated())).toMatchObject({ containerId: 'new', target: 'current' });
  });
});
