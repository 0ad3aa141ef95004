import { signal } from '@preact/signals';
import { adminApi, type Trigger } from './admin-api';
import type { Container } from './api';

/**
 * The Docker action triggers (`DD_ACTION_DOCKER_<NAME>_*`, docs/updates.md), read once per page
 * load from GET /triggers: without one covering a container's watcher the hub only reports its
 * updates, so the page offers no Update button but says how to get one. Undefined until read.
 */
export const actionTriggers = signal<readonly Trigger[] | undefined>(undefined);

let reading: Promise<void> | undefined;
/** Reads them once (again after a failure); the views call it when they need to know. */
export function loadActionTriggers(): Promise<void> {
  reading ??= adminApi.triggers().then(
    (page) => {
      actionTriggers.value = page.data.filter((trigger) => trigger.type === 'docker');
    },
    () => {
      // Unknown: the views then offer the preview, which names the real reason.
      reading = undefined;
    },
  );
  return reading;
}

/** The trigger that would update the container: the first one covering its watcher (as the hub picks it). */
export function actionTriggerFor(c: Pick<Container, 'watcher'>, triggers: readonly Trigger[]): Trigger | undefined {
  return triggers.find((trigger) => {
    const watchers = trigger.configuration['watcher'];
    if (typeof watchers !== 'string') return true;
    return watchers
      .split(',')
      .map((watcher) => watcher.trim().toLowerCase())
      .includes(c.watcher.toLowerCase());
  });
}

/** The sentence shown instead of an Update button. */
export const HOW_TO_ENABLE_UPDATES =
  'No Docker action trigger is configured, so the hub reports updates but does not run them. To update from this page, give the hub a variable such as DD_ACTION_DOCKER_UPDATE_BACKUPCOUNT=3 (any DD_ACTION_DOCKER_<NAME>_* declares one) and restart it; docs/updates.md explains the options.';
