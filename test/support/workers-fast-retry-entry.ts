// The hub's Workers entry with a hub object whose notification retries come after seconds rather
// than the default 24 to 36 s (the first one 4.8 to 7.2 s after the failure: 6 s ±20 %, then ×4 as the
// default schedule grows). Everything else is the hub's own: a suite that waits for a retry to fall
// due (a restart of workerd in between) waits less.

import { HubDurableObject } from '../../hub/src/adapter/workers/hub-durable-object';
import type { HubOptions } from '../../hub/src/compose-hub';

export { default } from '../../hub/src/entry/workers';

const FAST_RETRY_DELAY_MS = 6_000;

export class FastRetryHubDurableObject extends HubDurableObject {
  protected override tuning(): Pick<HubOptions, 'notificationTiming'> {
    return {
      notificationTiming: { maxAttempts: 5, baseDelayMs: FAST_RETRY_DELAY_MS, maxDelayMs: 4 * FAST_RETRY_DELAY_MS },
    };
  }
}
