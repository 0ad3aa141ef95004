import { Cron } from 'croner';
import * as v from 'valibot';
import { ConfigError } from '../../../shared/config/config-error';
import { type EnvReader, envBoolean, envChoice, envInteger } from '../../../shared/config/env-readers';
import { errorMessage } from '../../../shared/error-message';
import { REDACTED } from '../../../shared/redact';
import type { ProviderVariables } from '../config/provider-variables';
import { isPlainVariable, quotableValue, showVariable } from '../config/secret-variables';
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
export const NOTIFICATION_COMMON_KEYS = [
  'threshold',
  'mode',
  'once',
  'order',
  'simpletitle',
  'simplebody',
  'batchtitle',
  'cron',
] as const;

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
  throw new ConfigError(variable, `${result.issues[0]?.message ?? 'invalid value'}${quoted(variable, raw)}`);
}

/** ` (got "…")` for a value the secret table says may be quoted (URLs in it masked), else nothing. */
function quoted(variable: string, raw: string | undefined): string {
  const shown = raw === undefined ? undefined : quotableValue(variable, raw);
  return shown === undefined ? '' : ` (got "${shown.length > 60 ? `${shown.slice(0, 60)}…` : shown}")`;
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
      throw new ConfigError(cron.variable, `not a cron expression: ${errorMessage(error)}`);
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
  for (const [key, { value }] of group.values)
    if (!(NOTIFICATION_COMMON_KEYS as readonly string[]).includes(key)) keys[key] = value;
  const result = v.safeParse(definition.keys, keys);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const key = issue?.path?.[0]?.key;
  const variable =
    typeof key === 'string'
      ? (group.values.get(key)?.variable ??
        `${prefix}${group.type.toUpperCase()}_${group.name.toUpperCase().replaceAll('-', '_')}_${key.toUpperCase()}`)
      : (group.values.values().next().value?.variable ?? `${prefix}${group.type.toUpperCase()}`);
  const given = typeof key === 'string' ? group.values.get(key)?.value : undefined;
  throw new ConfigError(variable, `${issue?.message ?? 'invalid value'}${quoted(variable, given)}`);
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
  for (const [key, { variable, value }] of group.values) {
    if ((NOTIFICATION_COMMON_KEYS as readonly string[]).includes(key)) continue;
    // The secret table decides (a webhook URL shows its scheme and host only); a provider's secret
    // key the table took for plain would be a gap in the table: masked all the same.
    const gap = definition.secretKeys.includes(key) && isPlainVariable(variable);
    configuration[key] = gap ? REDACTED : showVariable(variable, value);
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
      throw new ConfigError(firstVariable, `cannot set up the trigger: ${errorMessage(error)}`);
    }
    // What the table does not know to be plain, and the provider's own secret keys, are redacted from delivery errors.
    const secretValues = [...group.values]
      .filter(([key, { variable }]) => definition.secretKeys.includes(key) || !isPlainVariable(variable))
      .map(([, { value }]) => value);
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
