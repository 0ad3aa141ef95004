import { afterAll, afterEach, beforeAll } from 'vitest';
import type { HubClient } from '../../support/hub-harness';
import { type NotificationReceiver, startNotificationReceiver } from '../../support/notification-receiver';

/**
 * One HTTP notification receiver for the calling file, and the hubs its tests start (`track` them): after each
 * test those hubs are closed and the receiver emptied and answering 200 again (and started again with `restart`,
 * for files whose tests stop it).
 */
export function useNotificationBed(options: { restart?: boolean } = {}): {
  receiver: () => NotificationReceiver;
  track: (hub: HubClient) => HubClient;
  /** For a test that closed its hubs itself: they are not closed again. */
  forgetHubs: () => void;
} {
  let receiver: NotificationReceiver | undefined;
  const hubs: HubClient[] = [];
  beforeAll(async () => {
    receiver = await startNotificationReceiver();
  });
  afterEach(async () => {
    for (const hub of hubs.splice(0)) await hub.close();
    if (!receiver) return;
    receiver.received.length = 0;
    receiver.behave({ status: 200 });
    if (options.restart) await receiver.start();
  });
  afterAll(() => receiver?.close());
  return {
    receiver: () => {
      if (!receiver) throw new Error('the receiver is started in beforeAll');
      return receiver;
    },
    track: (hub) => {
      hubs.push(hub);
      return hub;
    },
    forgetHubs: () => {
      hubs.length = 0;
    },
  };
}
