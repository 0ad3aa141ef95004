import { Cron } from 'croner';
import * as v from 'valibot';
import { ConfigError } from '../../../shared/config/config-error';
import { type EnvReader, envBoolean, envChoice, envInteger } from '../../../shared/config/env-readers';
import { isSensitiveKey, REDACTED } from '../../../shared/redact';
import type { ProviderVariables } from '../config/provider-variables';
import type {
  AnyNotificationProviderDefinition,
  DefaultTemplates,
  NotificationTransport,
} from './notification-provider';
import { secretFragments } from './providers/secret-fragments';
import { MAX_TEMPLATE_LENGTH, templateProblem } from './template';
import { UPDATE_THRESHOLDS, type UpdateThreshold } from './update-threshold';

export const NOTIFICATION_PREFIX = 'DD_NOTIFICATION_';
/** Whole variables under the prefix that are not triggers. */
export const NOTIFICATION_RESERVED = ['TIMEOUT'];

/**
 * `simple`: one message per container; `batch`: one message per watch cycle (or other burst of
 * events) holding its containers; `digest`: collected and sent as one message per event on the
 * CRON schedule.
 */
export const NOTIFICATION_MODES = ['simple', 'batch', 'digest'] as const;
export type NotificationMode = (typeof NOTIFICATION_MODES)[number];

export const DEFAULT_DIGEST_CRON = '0 8 * * *';

/** The keys the core reads for every type; the rest belong to the provider. */
const COMMON_KEYS = ['threshold', 'mode', 'once', 'order', 'simpletitle', 'simplebody', 'batchtitle', 'cron'] as const;

export interface NotificationTriggerSettings {
  threshold: UpdateThreshold;
  mode: NotificationMode;
  /** One notification per new version (identity + remote tag or digest), remembered across restarts. */
  once: boolean;
  /** Lower first: the order in which triggers are handed one event's messages. */
  order: number;
  /** SIMPLETITLE, SIMPLEBODY, BATCHTITLE as configured (the update-available templates). */
  templates: Partial<DefaultTemplates>;
  /** The digest schedule (mode digest). */
  cron: string;
}

/** One configured notification trigger (http-interface §2.12): `DD_NOTIFICATION_<TYPE>_<NAME>_*`. */
export interface NotificationTrigger {
  id: string;
  type: string;
  name: string;
  settings: NotificationTriggerSettings;
  definition: AnyNotificationProviderDefinition;
  transport: NotificationTransport;
  /** Values never to show: redacted from delivery errors before they are stored. */
  secrets: readonly string[];
  /** The configuration as the API may show it, secrets `***`. */
  configuration: Record<string, unknown>;
}

const thresholdReader: EnvReader<UpdateThreshold> = envChoice(UPDATE_THRESHOLDS);
const modeReader: EnvReader<NotificationMode> = envChoice(NOTIFICATION_MODES);
const orderReader = envInteger(-1_000_000, 1_000_000);

function read<T>(variable: string, raw: string, reader: EnvReader<T>): T {
  const result = v.safeParse(reader, raw);
  if (result.success) return result.output;
  const shown = raw.length > 60 ? `${raw.slice(0, 60)}…` : raw;
  throw new ConfigError(variable, `${result.issues[0]?.message ?? 'invalid value'} (got "${shown}")`);
}

function readSettings(group: ProviderVariables): NotificationTriggerSettings {
  const value = (key: string) => group.values.get(key);
  const templates: Partial<DefaultTemplates> = {};
  for (const [key, field] of [
    ['simpletitle', 'simpleTitle'],
    ['simplebody', 'simpleBody'],
    ['batchtitle', 'batchTitle'],
  ] as const) {
    const entry = value(key);
    if (!entry) continue;
    if (entry.value.length > MAX_TEMPLATE_LENGTH)
      throw new ConfigError(entry.variable, `longer than ${MAX_TEMPLATE_LENGTH} characters`);
    const problem = templateProblem(entry.value);
    if (problem) throw new ConfigError(entry.variable, `template error: ${problem}`);
    templates[field] = entry.value;
  }
  const cron = value('cron');
  if (cron) {
    try {
      new Cron(cron.value, { paused: true }).stop();
    } catch (error) {
      throw new ConfigError(cron.variable, `not a cron expression: ${(error as Error).message}`);
    }
  }
  const threshold = value('threshold');
  const mode = value('mode');
  const once = value('once');
  const order = value('order');
  return {
    threshold: threshold ? read(threshold.variable, threshold.value, thresholdReader) : 'all',
    mode: mode ? read(mode.variable, mode.value, modeReader) : 'simple',
    once: once ? read(once.variable, once.value, envBoolean) : true,
    order: order ? read(order.variable, order.value, orderReader) : 0,
    templates,
    cron: cron?.value ?? DEFAULT_DIGEST_CRON,
  };
}

function parseProviderKeys(
  group: ProviderVariables,
  definition: AnyNotificationProviderDefinition,
  prefix: string,
): unknown {
  const keys: Record<string, string> = {};
  for (const [key, { value }] of group.values) if (!(COMMON_KEYS as readonly string[]).includes(key)) keys[key] = value;
  const result = v.safeParse(definition.keys, keys);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const key = issue?.path?.[0]?.key;
  const variable =
    typeof key === 'string'
      ? (group.values.get(key)?.variable ??
        `${prefix}${group.type.toUpperCase()}_${group.name.toUpperCase().replaceAll('-', '_')}_${key.toUpperCase()}`)
      : (group.values.values().next().value?.variable ?? `${prefix}${group.type.toUpperCase()}`);
  const secret = typeof key === 'string' && (definition.secretKeys.includes(key) || isSensitiveKey(key));
  const given = typeof key === 'string' ? group.values.get(key)?.value : undefined;
  // A URL that failed validation may still hold a password: quoted masked, like the trigger listing shows it.
  const raw = given === undefined ? undefined : maskUrl(given).replace(/\/\/([^/:@]*):[^@/]*@/, `//$1:${REDACTED}@`);
  const shown = raw === undefined || secret ? '' : ` (got "${raw.length > 60 ? `${raw.slice(0, 60)}…` : raw}")`;
  throw new ConfigError(variable, `${issue?.message ?? 'invalid value'}${shown}`);
}

/** A URL's password and its query values with sensitive names are masked; the rest of it is useful to see. */
function maskUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (!/^https?:$|^mqtts?:$|^smtps?:$/.test(url.protocol)) return value;
  if (url.password) url.password = REDACTED;
  for (const name of [...url.searchParams.keys()]) if (isSensitiveKey(name)) url.searchParams.set(name, REDACTED);
  return url.toString();
}

function describeConfiguration(
  group: ProviderVariables,
  settings: NotificationTriggerSettings,
  definition: AnyNotificationProviderDefinition,
) {
  const configuration: Record<string, unknown> = {
    threshold: settings.threshold,
    mode: settings.mode,
    once: settings.once,
    order: settings.order,
    ...(settings.mode === 'digest' && { cron: settings.cron }),
    ...(settings.templates.simpleTitle !== undefined && { simpletitle: settings.templates.simpleTitle }),
    ...(settings.templates.simpleBody !== undefined && { simplebody: settings.templates.simpleBody }),
    ...(settings.templates.batchTitle !== undefined && { batchtitle: settings.templates.batchTitle }),
  };
  for (const [key, { value }] of group.values) {
    if ((COMMON_KEYS as readonly string[]).includes(key)) continue;
    configuration[key] = definition.secretKeys.includes(key) || isSensitiveKey(key) ? REDACTED : maskUrl(value);
  }
  return configuration;
}

/**
 * Builds every notification trigger from its grouped variables. Throws ConfigError naming the
 * variable for an unknown type, a bad common key, a template that does not compile, or a key
 * the provider refuses; a provider's secret value is never echoed in the message.
 */
export function loadNotificationTriggers(
  groups: readonly ProviderVariables[],
  definitions: readonly AnyNotificationProviderDefinition[],
  prefix = NOTIFICATION_PREFIX,
): NotificationTrigger[] {
  const byType = new Map(definitions.map((definition) => [definition.type, definition]));
  const triggers: NotificationTrigger[] = [];
  for (const group of groups) {
    const definition = byType.get(group.type);
    const firstVariable = group.values.values().next().value?.variable ?? `${prefix}${group.type.toUpperCase()}`;
    if (!definition) {
      throw new ConfigError(
        firstVariable,
        `unknown notification type "${group.type}"; known: ${[...byType.keys()].sort().join(', ')}`,
      );
    }
    const settings = readSettings(group);
    const config = parseProviderKeys(group, definition, prefix);
    let transport: NotificationTransport;
    try {
      transport = definition.create(config, group.name);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(firstVariable, `cannot set up the trigger: ${(error as Error).message}`);
    }
    const secretValues = definition.secretKeys.map((key) => group.values.get(key)?.value);
    triggers.push({
      id: `${group.type}.${group.name}`,
      type: group.type,
      name: group.name,
      settings,
      definition,
      transport,
      secrets: [
        ...new Set([
          ...secretFragments([...secretValues, ...(transport.secrets ?? [])]),
          ...exactSecrets(secretValues),
        ]),
      ],
      configuration: describeConfiguration(group, settings, definition),
    });
  }
  return triggers.sort((a, b) => a.settings.order - b.settings.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Short secrets too (secretFragments skips pieces under six characters); four is the floor against blanking words. */
function exactSecrets(values: readonly (string | undefined)[]): string[] {
  return values.filter((value): value is string => value !== undefined && value.length >= 4);
}

/** GET /api/v1/triggers/{type}/{name} (http-interface §2.12). */
export function describeTrigger(trigger: NotificationTrigger) {
  return { id: trigger.id, type: trigger.type, name: trigger.name, configuration: trigger.configuration };
}
