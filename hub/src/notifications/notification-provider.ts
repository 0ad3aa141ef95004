import type * as v from 'valibot';
import type { Logger } from '../../../shared/logging/logger';
import type { AuditRecord } from '../../../shared/schemas/audit-entry';
import type { Container } from '../../../shared/schemas/container';
import type { NotificationRuleId } from '../../../shared/schemas/notification-rule';

/**
 * The contract between the notification core (routing, thresholds, modes, templates, the outbox)
 * and one notification trigger type (`DD_NOTIFICATION_<TYPE>_<NAME>_<KEY>`). One file per type
 * under `providers/`; types that need Node sockets (smtp, mqtt) live in the Node adapter and are
 * handed to the core through the hub's deps, so the core stays portable.
 *
 * A provider only delivers: it never decides whether to send, and never renders templates.
 */
export interface NotificationMessage {
  /** The notification event (the rule id, http-interface §6.3). */
  event: NotificationRuleId;
  /** `simple`: one container; `batch`: one message for a cycle's or a digest's containers. */
  kind: 'simple' | 'batch';
  /** Rendered from the templates; providers put them where their service expects a title and a body. */
  title: string;
  body: string;
  /** The containers concerned, as the API shows them (sensitive env redacted). */
  containers: Container[];
}

export interface DeliveryContext {
  /** The runtime's fetch; every HTTP provider uses this one, never the global. */
  fetch: typeof fetch;
  /** Aborted at the delivery timeout. */
  signal: AbortSignal;
  now(): number;
}

/**
 * A failed delivery. `message` is what lands in the outbox's `lastError`: it may quote the
 * receiver's answer, but the core still redacts Authorization values and the provider's secret
 * keys before storing it. `retryable` false sends the entry straight to dead-letter (a 4xx other
 * than 408/429: retrying cannot help).
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean = true,
    readonly status?: number,
    /** The receiver's own wait (Retry-After, or a body field like Discord's `retry_after`), in ms: retry no sooner. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

export interface NotificationTransport {
  send(message: NotificationMessage, context: DeliveryContext): Promise<void>;
  /**
   * Secret values the core must redact from errors besides the `secretKeys` values themselves
   * (the single header values of a JSON `HEADERS` key, a token taken out of a URL).
   */
  readonly secrets?: readonly string[];
  /** Sockets to close at hub stop (mqtt); HTTP providers have nothing to close. */
  close?(): Promise<void>;
}

export interface DefaultTemplates {
  simpleTitle: string;
  simpleBody: string;
  batchTitle: string;
}

/**
 * One trigger type. `keys` validates the provider's own keys (lower-case, without the common
 * ones THRESHOLD, MODE, ONCE, ORDER, SIMPLETITLE, SIMPLEBODY, BATCHTITLE, CRON which the core
 * reads); a failed key becomes a ConfigError naming `DD_NOTIFICATION_<TYPE>_<NAME>_<KEY>`.
 */
export interface NotificationProviderDefinition<Config = Record<string, unknown>> {
  type: string;
  /** Its input is the lower-case key → value map; optional keys make the input type's values `string | undefined`. */
  keys: v.GenericSchema<Record<string, string | undefined>, Config>;
  /** Lower-case keys whose values are secrets: masked in `GET /api/v1/triggers` and redacted from errors. */
  secretKeys: readonly string[];
  /** Overrides of the core's default templates, for services with their own conventions. */
  defaults?: Partial<DefaultTemplates>;
  create(config: Config, name: string): NotificationTransport;
}

/**
 * What the core hands to the runtime's own provider types (Node: smtp, mqtt) when it builds them:
 * `nodeNotificationProviders(hooks)` in the hub's deps returns their definitions.
 */
export interface NotificationProviderHooks {
  logger: Logger;
  /** Records an audit entry (mqtt: `mqtt-command-update` for every install command received). */
  audit(record: AuditRecord): Promise<unknown>;
  /**
   * Starts an update of the container (the update action). Absent until updates exist:
   * install commands are then refused, and audited as such.
   */
  onInstall?: ((containerId: string) => Promise<void>) | undefined;
  /** The containers as the API shows them, so mqtt can publish Home Assistant discovery at connect. */
  containers?: (() => Promise<Container[]>) | undefined;
}

/**
 * A definition of any config type, as the core holds them in its list: it only ever passes the
 * output of a definition's own `keys` into that definition's `create`.
 */
// biome-ignore lint/suspicious/noExplicitAny: each provider's config type is its own; `never` would refuse every definition.
export type AnyNotificationProviderDefinition = NotificationProviderDefinition<any>;
