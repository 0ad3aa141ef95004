import * as v from 'valibot';

// What the notification routes answer (http-interface §2.9, §4.10), for the hub's routes and the web UI's types.

/**
 * The states of an outbox entry (hub/src/store/notification-outbox-store.ts). `pending`: waiting for
 * its first attempt (or requeued by an admin); `retrying`: failed at least once, the next attempt is
 * scheduled; `dead-letter`: out of attempts, or refused in a way a retry cannot fix (http-interface
 * §3.6). A delivered entry is deleted.
 */
export const OUTBOX_STATUSES = ['pending', 'retrying', 'dead-letter'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

/** One entry of the bell (GET /notifications/bell). */
export const BellEntrySchema = v.object({
  id: v.string(),
  event: v.string(),
  timestamp: v.string(),
  containerName: v.optional(v.string()),
  containerImage: v.optional(v.string()),
  fromVersion: v.optional(v.string()),
  toVersion: v.optional(v.string()),
  details: v.optional(v.string()),
  read: v.boolean(),
});

/** An outbox entry as the API shows it: the title and which containers, never the message body. */
export const OutboxEntryViewSchema = v.object({
  id: v.string(),
  triggerId: v.string(),
  event: v.string(),
  kind: v.string(),
  status: v.picklist(OUTBOX_STATUSES),
  attempts: v.number(),
  maxAttempts: v.number(),
  createdAt: v.string(),
  updatedAt: v.string(),
  nextAttemptAt: v.optional(v.string()),
  lastError: v.optional(v.string()),
  manual: v.optional(v.boolean()),
  payload: v.object({
    title: v.string(),
    containerCount: v.number(),
    containers: v.array(v.record(v.string(), v.unknown())),
  }),
});

/** POST /notifications/preview: the templates rendered for a simulated container. */
export const NotificationPreviewSchema = v.object({
  simpleTitle: v.string(),
  simpleBody: v.string(),
  batchTitle: v.string(),
});

/** A configured trigger (GET /triggers), its secrets masked. */
export const TriggerSchema = v.object({
  id: v.string(),
  type: v.string(),
  name: v.string(),
  configuration: v.record(v.string(), v.unknown()),
});
