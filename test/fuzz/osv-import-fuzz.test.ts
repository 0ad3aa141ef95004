/**
 * The OSV import and the matcher on hostile databases (hub/src/security/osv/): the fixture's entries
 * (test/support/fixtures/osv/) mutated at random (a field replaced by a hostile value, an event
 * renamed, a version made of version syntax from every ecosystem), mixed with garbage lines. Neither
 * the import nor a scan may throw; every entry is counted once (imported, skipped, withdrawn, or
 * naming no package); a finding only names an advisory that was imported; the untouched entries
 * still give their findings.
 */
import { readFileSync } from 'node:fs';
import { strToU8 } from 'fflate';
import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { importOsvExport } from '../../hub/src/security/osv/osv-import';
import { OsvStore } from '../../hub/src/security/osv/osv-store';
import { scanSbom } from '../../hub/src/security/osv/scan-sbom';
import type { ImageSbom } from '../../hub/src/security/sbom-model';
import { createLogRing } from '../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../shared/logging/logger';
import { hostileJsonValue, Rng, seedFromEnv, seedHex } from './generators';

const FIXTURE = new URL('../support/fixtures/osv/advisories.json', import.meta.url);
const seed = seedFromEnv(process.env.FUZZ_SEED);
const logger = createLogger({ level: 'error', ring: createLogRing(10), sink: silentSink });

const VERSION_PIECES = [
  '0',
  '1',
  '10',
  '.',
  '-',
  '~',
  '^',
  ':',
  '_rc',
  '_p',
  '-r',
  'a',
  'v',
  '+',
  ' ',
  '',
  'é',
  '9'.repeat(30),
];

function hostileVersion(rng: Rng): string {
  return Array.from({ length: rng.int(0, 6) }, () => rng.pick(VERSION_PIECES)).join('');
}

/** One mutation somewhere in an entry: a value replaced, an event renamed, a version garbled. */
function mutate(rng: Rng, entry: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(entry) as Record<string, unknown>;
  const affected = Array.isArray(copy['affected']) ? (copy['affected'] as Record<string, unknown>[]) : [];
  const first = affected[0];
  const ranges = first && Array.isArray(first['ranges']) ? (first['ranges'] as Record<string, unknown>[]) : [];
  const events =
    ranges[0] && Array.isArray(ranges[0]['events']) ? (ranges[0]['events'] as Record<string, unknown>[]) : [];
  switch (rng.int(0, 5)) {
    case 0:
      copy[rng.pick(['id', 'affected', 'severity', 'aliases', 'withdrawn', 'references', 'summary'])] =
        hostileJsonValue(rng);
      break;
    case 1:
      if (first) first[rng.pick(['package', 'ranges', 'versions', 'severity'])] = hostileJsonValue(rng);
      break;
    case 2:
      if (events[0])
        events[rng.int(0, events.length - 1)] = {
          [rng.pick(['introduced', 'fixed', 'last_affected', 'limit', 'bogus'])]: hostileVersion(rng),
        };
      break;
    case 3:
      if (events.length > 0)
        events.push(
          ...Array.from({ length: rng.int(1, 3) }, () => ({
            [rng.pick(['fixed', 'introduced', 'limit'])]: hostileVersion(rng),
          })),
        );
      break;
    case 4:
      if (first) first['versions'] = Array.from({ length: rng.int(0, 4) }, () => hostileVersion(rng));
      break;
    default:
      if (ranges[0]) ranges[0]['type'] = rng.pick(['SEMVER', 'ECOSYSTEM', 'GIT', 'semver', '', 7]);
  }
  return copy;
}

const images: ImageSbom[] = [
  {
    imageId: 'sha256:d',
    imageRef: 'd',
    distro: { id: 'debian', versionId: '12' },
    generatedAt: '2026-06-01T00:00:00Z',
    packages: [
      {
        type: 'deb',
        name: 'libssl3',
        version: '3.0.11-1~deb12u1',
        source: { name: 'openssl', version: '3.0.11-1~deb12u1' },
        purl: 'pkg:deb/debian/libssl3',
        licenses: [],
        location: '/',
      },
      { type: 'npm', name: 'express', version: '4.17.3-rc.1', purl: 'pkg:npm/express', licenses: [], location: '/' },
    ],
  },
  {
    imageId: 'sha256:a',
    imageRef: 'a',
    distro: { id: 'alpine', versionId: '3.19.1' },
    generatedAt: '2026-06-01T00:00:00Z',
    packages: [
      {
        type: 'apk',
        name: 'musl',
        version: '1.2.4_rc1-r0',
        source: { name: 'musl' },
        purl: 'pkg:apk/alpine/musl',
        licenses: [],
        location: '/',
      },
    ],
  },
];

describe(`OSV import fuzz (seed ${seedHex(seed)})`, () => {
  const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown[];
  const good = fixture.filter(
    (entry): entry is Record<string, unknown> =>
      typeof entry === 'object' &&
      entry !== null &&
      String((entry as { id: unknown }).id).match(/^(DSA|ALPINE|GHSA|PYSEC|GO)-/) !== null,
  );

  for (let batch = 0; batch < 25; batch++) {
    it(`batch ${batch}: never throws, counts every entry once, finds only imported advisories`, async () => {
      const rng = new Rng((seed ^ Math.imul(batch + 1, 0x9e3779b1)) >>> 0);
      const lines: string[] = [];
      const kept: Record<string, unknown>[] = [];
      let garbage = 0;
      for (let i = 0; i < 60; i++) {
        const base = rng.pick(good);
        if (rng.bool(0.1)) {
          lines.push(rng.pick(['{', '[1,', 'null x', '"\\u0000', '}{']));
          garbage++;
        } else if (rng.bool(0.4)) {
          kept.push(base);
          lines.push(JSON.stringify(base));
        } else lines.push(JSON.stringify({ ...mutate(rng, base), id: `${String(base['id'])}-m${i}` }));
      }
      const store = new OsvStore(createStorage(), logger);
      const meta = await importOsvExport(store, strToU8(lines.join('\n')), 'fuzz', Date.parse('2026-06-01T00:00:00Z'));
      const { imported, skipped, withdrawn } = meta.counts;
      expect(imported + skipped + withdrawn).toBeLessThanOrEqual(lines.length);
      expect(skipped).toBeGreaterThanOrEqual(garbage);
      const importedIds = new Set<string>();
      for (const image of images) {
        const findings = await scanSbom(image, store);
        for (const finding of findings) importedIds.add(finding.id);
      }
      // Untouched fixture entries still match (by their own id), and nothing unknown is found.
      const lineIds = new Set(
        lines.flatMap((line) => {
          try {
            return [String((JSON.parse(line) as { id: unknown }).id)];
          } catch {
            return [];
          }
        }),
      );
      for (const id of importedIds) expect(lineIds.has(id), id).toBe(true);
      const expected = new Set(
        kept
          .map((entry) => String(entry['id']))
          .filter((id) => ['DSA-TEST-0001', 'GHSA-test-0001', 'ALPINE-TEST-0001'].includes(id)),
      );
      for (const id of expected) expect(importedIds.has(id), id).toBe(true);
    });
  }
});
