import type { Storage } from 'unstorage';
import type { HubInput } from '../../hub/src/compose-hub';
import { simulatedContainer } from '../../hub/src/notifications/simulated-container';
import { applyInventory } from '../../hub/src/watchers/apply-inventory';
import type { Environment } from '../../shared/config/env-source';
import type { Container } from '../../shared/schemas/container';
import type { SemverDiff } from '../../shared/update/update-kind';
import { createMemoryHub, type HubClient } from './hub-harness';

/** Retries in milliseconds, so a test sees dead-letter without waiting half an hour. */
export const FAST_RETRIES: HubInput['notificationTiming'] = {
  maxAttempts: 3,
  baseDelayMs: 20,
  maxDelayMs: 100,
  random: () => 0.5,
};

/** A memory hub with notification triggers from `env`, over `storage` when a restart must find it again. */
export function notificationHub(
  env: Environment,
  options: { storage?: Storage; timing?: HubInput['notificationTiming'] } = {},
) {
  return createMemoryHub(
    { DD_SERVER_RATELIMIT_MAX: '1000000000', ...env },
    {
      notificationTiming: options.timing ?? FAST_RETRIES,
      ...(options.storage && { storage: options.storage }),
    },
  );
}

let clock = Date.UTC(2026, 0, 1);

/** A container record as a watch cycle writes it: checked now, with the given update pending. */
export function record(
  name: string,
  update: { from: string; to: string; diff?: SemverDiff } | { digest: string } | undefined,
  extra: Partial<Container> = {},
): Container {
  clock += 1000;
  const at = new Date(clock).toISOString();
  const updateKind: Container['updateKind'] =
    update === undefined
      ? { kind: 'unknown' }
      : 'digest' in update
        ? { kind: 'digest', localValue: 'sha256:aaaa', remoteValue: update.digest }
        : {
            kind: 'tag',
            localValue: update.from,
            remoteValue: update.to,
            ...(update.diff && { semverDiff: update.diff }),
          };
  return simulatedContainer(clock, {
    id: `${name}-id`,
    name,
    displayName: name,
    updateAvailable: update !== undefined,
    updateKind,
    env: [{ key: 'API_TOKEN', value: 'very-secret-env' }],
    labels: { 'com.example.note': 'label-value' },
    checkedAt: at,
    ...extra,
  });
}

/** One watch cycle's records applied the way the watchers apply them, notifications included, then (unless told not to) every delivery it caused finished. */
export async function cycle(hub: HubClient, records: Container[], options: { settle?: boolean } = {}): Promise<void> {
  const services = hub.hub.parts;
  await applyInventory(
    { records, removedIds: [], errors: [], authoritative: true },
    {
      store: services.containers,
      publish: services.publish,
      audit: (entries) => services.audit.appendMany(entries),
      notify: (changes) => services.notifications.inventoryApplied(changes),
    },
  );
  if (options.settle !== false) await services.notifications.outbox.settled();
}
