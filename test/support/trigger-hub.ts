// biome-ignore-all lint/suspicious/noTemplateCurlyInString: notification templates are plain strings holding ${…} on purpose
import { afterAll, afterEach, beforeAll, describe } from 'vitest';
import { createWorkerdHub, type HubClient, type HubMode } from './hub-harness';
import { notificationHub } from './notification-hub';
import { type NotificationReceiver, startNotificationReceiver } from './notification-receiver';

/** The password of the `ops` trigger: suites check it never shows. */
export const TRIGGER_PASSWORD = 'basic-pass-0d9e7c';

export interface TriggerHub {
  hub(): HubClient;
  receiver(): NotificationReceiver;
  /** A request to the hub, its status and parsed JSON body (tests read into it freely, as the suites did before). */
  // biome-ignore lint/suspicious/noExplicitAny: the suites index into answers of many shapes
  json(path: string, init?: RequestInit): Promise<{ status: number; body: any }>;
}

/** The bed's variables: the triggers, their receiver's URL in them. */
function triggerVariables(receiver: NotificationReceiver): Record<string, string> {
  return {
    DD_NOTIFICATION_HTTP_OPS_URL: `${receiver.url}?token=query-secret-1a2b3c&room=ops`,
    DD_NOTIFICATION_HTTP_OPS_USER: 'hub',
    DD_NOTIFICATION_HTTP_OPS_PASSWORD: TRIGGER_PASSWORD,
    DD_NOTIFICATION_HTTP_OPS_SIMPLEBODY: 'Trigger default body for ${container.name}',
    DD_NOTIFICATION_HTTP_OPS_ORDER: '5',
    DD_NOTIFICATION_HTTP_FIRST_URL: `${receiver.url}/first`,
    DD_NOTIFICATION_HTTP_FIRST_ORDER: '1',
    DD_NOTIFICATION_HTTP_FIRST_MODE: 'batch',
    // An action trigger: configured, but never a notification trigger.
    DD_ACTION_DOCKER_LOCAL_PRUNE: 'true',
  };
}

/**
 * A notification hub with two http triggers (`ops`, masked credentials and a default body; `first`,
 * batch mode, first in ORDER) and one Docker action trigger, delivering to a real receiver: what the
 * trigger and notification-rule suites share. Registers the suite's hooks; the receiver's log and
 * behaviour are reset after each test.
 */
export function useTriggerHub(mode: Exclude<HubMode, 'server'> = 'memory'): TriggerHub {
  let receiver: NotificationReceiver | undefined;
  let hub: HubClient | undefined;
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('trigger hub not started');
    return value;
  };
  beforeAll(async () => {
    receiver = await startNotificationReceiver();
    const env = triggerVariables(receiver);
    // Under workerd the triggers are Worker vars, and the retries keep their real timing.
    hub = mode === 'workerd' ? await createWorkerdHub(env) : await notificationHub(env);
  });
  afterEach(() => {
    if (!receiver) return;
    receiver.received.length = 0;
    receiver.behave({ status: 200 });
  });
  afterAll(async () => {
    await hub?.close();
    await receiver?.close();
  });
  return {
    hub: () => started(hub),
    receiver: () => started(receiver),
    json: async (path, init) => {
      const response = await started(hub).request(path, init);
      return { status: response.status, body: await response.json() };
    },
  };
}

/**
 * The trigger bed's suites in memory and under workerd from one definition (the hub's Worker vars
 * carry the triggers; the receiver is a real server on loopback either way). A case that drives the
 * hub object (a watch cycle through `cycle`) is skipped under workerd with its reason.
 */
export function describeTriggerBed(name: string, suite: (bed: TriggerHub, mode: HubMode) => void): void {
  for (const mode of ['memory', 'workerd'] as const) {
    describe(`${name} [${mode}]`, () => suite(useTriggerHub(mode), mode));
  }
}
