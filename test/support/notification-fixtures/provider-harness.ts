import * as v from 'valibot';
import { expect } from 'vitest';
import {
  type AnyNotificationProviderDefinition,
  type DeliveryContext,
  DeliveryError,
  type NotificationMessage,
  type NotificationTransport,
} from '../../../hub/src/notifications/notification-provider';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, type Logger } from '../../../shared/logging/logger';
import type { Container } from '../../../shared/schemas/container';

/** The transport the core would build from these keys (validated by the definition's own schema). */
export function buildTransport(
  definition: AnyNotificationProviderDefinition,
  keys: Record<string, string>,
  name = 'test',
): NotificationTransport {
  return definition.create(v.parse(definition.keys, keys), name);
}

/** Key → message of every refused key (the core names each key's variable in a ConfigError); `{}` when valid. */
export function keyIssues(
  definition: AnyNotificationProviderDefinition,
  keys: Record<string, string>,
): Record<string, string> {
  const result = v.safeParse(definition.keys, keys);
  if (result.success) return {};
  return Object.fromEntries(result.issues.map((issue) => [v.getDotPath(issue) ?? '', issue.message]));
}

/** What the core passes to send(): the global fetch and a delivery timeout. */
export function deliveryContext(timeoutMs = 5_000): DeliveryContext {
  return { fetch: (input, init) => fetch(input, init), signal: AbortSignal.timeout(timeoutMs), now: Date.now };
}

/** The DeliveryError a delivery failed with; fails the test when it succeeded or failed otherwise. */
export async function deliveryError(delivery: Promise<unknown>): Promise<DeliveryError> {
  const outcome = await delivery.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(DeliveryError);
  return outcome as DeliveryError;
}

/** Asserts the error's message quotes none of the secrets (it lands in the outbox's `lastError`). */
export function expectNoSecrets(error: Error, secrets: readonly string[]): void {
  for (const secret of secrets) expect(error.message).not.toContain(secret);
}

export function sampleContainer(overrides: Partial<Container> = {}): Container {
  return {
    id: '3f4e5d6c7b8a90123456789abcdef0123456789abcdef0123456789abcdef01',
    name: 'web',
    watcher: 'local',
    status: 'running',
    displayName: 'web',
    watched: true,
    webhookEnabled: true,
    labels: {},
    env: [],
    image: {
      id: 'sha256:1111111111111111111111111111111111111111111111111111111111111111',
      registry: { url: 'docker.io' },
      name: 'library/nginx',
      tag: { value: '1.25.3', semver: true },
      digest: { watch: false },
      architecture: 'amd64',
      os: 'linux',
    },
    result: { tag: '1.25.4' },
    updateAvailable: true,
    updateKind: { kind: 'tag', localValue: '1.25.3', remoteValue: '1.25.4', semverDiff: 'patch' },
    updatePolicy: {},
    createdAt: '2024-05-01T10:00:00.000Z',
    firstSeenAt: '2024-05-01T10:00:00.000Z',
    ...overrides,
  };
}

export function sampleMessage(overrides: Partial<NotificationMessage> = {}): NotificationMessage {
  return {
    event: 'update-available',
    kind: 'simple',
    title: 'New version for web',
    body: 'web: nginx 1.25.3 → 1.25.4 (patch) <b>&',
    containers: [sampleContainer()],
    ...overrides,
  };
}

export interface RecordedLine {
  level: string;
  component: string;
  msg: string;
  fields: Record<string, unknown> | undefined;
}

/** The hub's logger, writing into an array instead of stdout. */
export function recordingLogger(): { logger: Logger; lines: RecordedLine[] } {
  const lines: RecordedLine[] = [];
  const logger = createLogger({
    level: 'debug',
    ring: createLogRing(100),
    sink: (entry, fields) => lines.push({ level: entry.level, component: entry.component, msg: entry.msg, fields }),
  });
  return { logger, lines };
}
