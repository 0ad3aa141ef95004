import { createStorage } from 'unstorage';
import { describe, expect, it } from 'vitest';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';
import { containerIdentity } from '../../../shared/update/update-clock';
import { containerRecord } from '../../../test/support/container-fixture';
import type { ImageCheckResult } from '../checks/check-image';
import type { FleetLookups } from '../checks/fleet-lookups';
import { createContainerStore } from '../store/container-store';
import { checkContainer, recheckMoved, TagPolicyCache } from './container-check';

/**
 * The registry's side is a fixed answer per question here: what is under test is what a check
 * keeps between cycles (issue 18), and that nothing kept outlives a change of its inputs. The
 * registry checks themselves are tested against a real registry (test/registries, the watch suites).
 */
function answering(answer: (key: string) => ImageCheckResult | Promise<ImageCheckResult>) {
  const asked: string[] = [];
  const lookups = {
    imageCheck: async <T>(_policy: unknown, key: string, _check: () => Promise<T>) => {
      asked.push(key);
      return (await answer(key)) as T;
    },
  } as unknown as FleetLookups;
  return { lookups, asked };
}

const minor = (tag: string): ImageCheckResult => ({
  tagWatched: true,
  digestWatched: false,
  candidate: { tag, semverDiff: 'minor' },
  digestChanged: false,
  errors: [],
});

async function rig(answer: (key: string) => ImageCheckResult | Promise<ImageCheckResult>) {
  const store = createContainerStore(
    createStorage(),
    createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink }),
  );
  await store.load();
  const { lookups, asked } = answering(answer);
  const policies = new TagPolicyCache();
  let now = Date.parse('2026-11-27T10:00:00Z');
  // One object, as a watcher hands the label policy of a record it did not build again.
  const labelPolicy = {};
  const check = async (record: Container) => {
    now += 60_000;
    return checkContainer(record, labelPolicy, { lookups, store, policies, thresholdDays: 0, now });
  };
  const recheck = (records: Container[]) => recheckMoved(records, { lookups, store, policies, thresholdDays: 0, now });
  return { store, asked, check, recheck };
}

describe('a container check between cycles', () => {
  it('hands an unchanged record back with its own objects and only a new check time', async () => {
    const { check } = await rig(() => minor('1.1.0'));
    const first = await check(containerRecord());
    expect(first.updateAvailable).toBe(true);
    expect(first.updateKind).toMatchObject({ kind: 'tag', localValue: '1.0.0', remoteValue: '1.1.0' });
    const second = await check(first);
    expect(second).not.toBe(first);
    expect(second.checkedAt).not.toBe(first.checkedAt);
    // Nothing but the time moved: the update fields are the very objects of the last record.
    expect(second.updateKind).toBe(first.updateKind);
    expect(second.updatePolicy).toBe(first.updatePolicy);
    expect({ ...second, checkedAt: first.checkedAt }).toEqual(first);
  });

  it('asks again with the new skips once the identity state changed, and drops the skipped update', async () => {
    const { store, asked, check } = await rig((key) =>
      key.endsWith('["1.1.0"]') ? { ...minor('1.1.0'), candidate: undefined } : minor('1.1.0'),
    );
    const first = await check(containerRecord());
    expect(first.updateAvailable).toBe(true);
    await store.setIdentityState(containerIdentity(first), { policy: { skipTags: ['1.1.0'] } });
    const second = await check(first);
    expect(asked.at(-1)?.endsWith('["1.1.0"]')).toBe(true);
    expect(second.updateAvailable).toBe(false);
    expect(second.updatePolicy).toEqual({ skipTags: ['1.1.0'] });
  });

  it('checks with a policy changed while the registry was asked, and stores that policy', async () => {
    const record = containerRecord();
    let skipMeanwhile: (() => Promise<void>) | undefined;
    const { store, asked, check } = await rig(async (key) => {
      // The first question is answered only after an API call skipped its candidate meanwhile.
      const skip = skipMeanwhile;
      skipMeanwhile = undefined;
      await skip?.();
      return key.endsWith('["1.1.0"]') ? { ...minor('1.1.0'), candidate: undefined } : minor('1.1.0');
    });
    skipMeanwhile = () => store.setIdentityState(containerIdentity(record), { policy: { skipTags: ['1.1.0'] } });
    const checked = await check(record);
    // Asked again with the skip: the record carries the new policy and no skipped update.
    expect(asked).toHaveLength(2);
    expect(asked[1]?.endsWith('["1.1.0"]')).toBe(true);
    expect(checked.updatePolicy).toEqual({ skipTags: ['1.1.0'] });
    expect(checked.updateAvailable).toBe(false);
  });

  it('finds a checked record out of date once its policy changed after the check, not after its own clock write', async () => {
    const { store, asked, check, recheck } = await rig((key) =>
      key.endsWith('["1.1.0"]') ? { ...minor('1.1.0'), candidate: undefined } : minor('1.1.0'),
    );
    const checked = await check(containerRecord());
    const identity = containerIdentity(checked);
    // The check started the update's clock: that write is its own, not a change to follow.
    expect(store.identityState(identity).clock).toMatchObject({ remoteValue: '1.1.0' });
    expect((await recheck([checked])).size).toBe(0);
    await store.setIdentityState(identity, { ...store.identityState(identity), policy: { skipTags: ['1.1.0'] } });
    const rechecked = (await recheck([checked])).get(checked);
    expect(asked.at(-1)?.endsWith('["1.1.0"]')).toBe(true);
    expect(rechecked).toMatchObject({ updateAvailable: false, updatePolicy: { skipTags: ['1.1.0'] } });
    // Once checked with it, the record agrees with the state: nothing more to do.
    expect((await recheck([rechecked as Container])).size).toBe(0);
  });

  it('gives the new update when the registry says something else', async () => {
    let latest = '1.1.0';
    const { check } = await rig(() => minor(latest));
    const first = await check(containerRecord());
    latest = '1.2.0';
    const second = await check(first);
    expect(second.updateKind).toMatchObject({ remoteValue: '1.2.0' });
  });

  it('keeps a record whose image cannot be looked up failing, cycle after cycle', async () => {
    const { asked, check } = await rig(() => minor('1.1.0'));
    const untagged = containerRecord({
      image: { ...containerRecord().image, tag: { value: '', semver: false } },
    });
    const first = await check(untagged);
    const second = await check(first);
    expect(second.error).toMatchObject({ phase: 'check', kind: 'unsupported-reference' });
    expect(asked).toEqual([]);
  });
});
