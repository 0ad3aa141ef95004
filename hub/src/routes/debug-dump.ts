import { isSensitiveKey, REDACTED } from '../../../shared/redact';
import type { HubConfig } from '../config/hub-config';
import { classifyVariable, isPlainVariable } from '../config/secret-variables';
import { releaseNotesTokens } from '../release-notes/release-notes-config';

/**
 * The debug dump's last line of defence (docs/operations.md "Debug dump"): the dump is built from
 * views that already mask their secrets, and this pass then (1) replaces every string under a key
 * that names a secret (decisions §7), (2) strips the credentials of any URL, and (3) replaces
 * every occurrence of a secret the configuration holds, wherever it landed (a log line, a message).
 * A dump is sent to strangers on support forums: a view that forgets to mask is caught here.
 */

/** Keys whose values are ids or descriptions rather than secrets, though their names match the pattern. */
const NOT_SECRET_KEYS = new Set([
  'keyId',
  'apiKeys',
  'activeApiKeys',
  'authentication',
  'authentications',
  'authRequired',
]);

/** Secrets shorter than this are not searched for in free text: "1" or "on" would mask half the dump. */
const MIN_SCRUBBED_LENGTH = 6;

/**
 * Every secret value the configuration holds, for the free-text scrub: what the parsed configuration
 * keeps, and each variable the hub runs with that the secret table (secret-variables.ts) does not
 * know to be plain (registry passwords included, which HubConfig does not hold).
 */
export function configuredSecrets(config: HubConfig, variables: ReadonlyMap<string, string> = new Map()): string[] {
  const found = new Set<string>();
  const add = (value: string | undefined) => {
    if (value === undefined) return;
    if (value.length >= MIN_SCRUBBED_LENGTH) found.add(value);
    for (const part of urlCredentials(value)) if (part.length >= MIN_SCRUBBED_LENGTH) found.add(part);
  };
  add(config.server.metricsToken);
  add(config.store.url);
  add(config.webhooks.secret);
  if (config.webhooks.tokens.kind === 'shared') add(config.webhooks.tokens.token);
  if (config.webhooks.tokens.kind === 'per-endpoint')
    for (const token of Object.values(config.webhooks.tokens.tokens)) add(token);
  for (const agent of config.agents) add(agent.secret);
  for (const token of releaseNotesTokens(config.releaseNotes)) add(token);
  for (const user of config.auth.basic) {
    for (const code of user.recoveryCodes) add(code);
  }
  for (const provider of config.auth.oidc) add(provider.clientSecret);
  const addVariable = (variable: string, value: string) => {
    if (isPlainVariable(variable)) return;
    const kind = classifyVariable(variable)?.class;
    if (kind === 'url') for (const part of urlCredentials(value)) add(part);
    else add(value);
    // A webhook-style URL carries its token in the path (Slack, Discord…), an endpoint perhaps in its query.
    const rest = kind === 'url' ? urlQuery(value) : urlPath(value);
    if (rest !== undefined) add(rest);
  };
  for (const trigger of config.notifications.triggers)
    for (const { variable, value } of trigger.values.values()) addVariable(variable, value);
  for (const [variable, value] of variables) addVariable(variable, value);
  // Longest first: a secret that contains another is replaced whole.
  return [...found].sort((a, b) => b.length - a.length);
}

/** The path and query of an absolute URL, when there is more than `/`. */
function urlPath(text: string): string | undefined {
  try {
    const url = new URL(text);
    const rest = `${url.pathname}${url.search}`;
    if (rest === '/' || rest === '') return undefined;
    // As written (the URL parser may re-encode), from the first slash after the authority.
    const start = text.indexOf('/', text.indexOf('//') + 2);
    return start < 0 ? rest : text.slice(start);
  } catch {
    return undefined;
  }
}

/** The query of an absolute URL, as written. */
function urlQuery(text: string): string | undefined {
  const start = text.indexOf('?');
  return URL.canParse(text) && start >= 0 ? text.slice(start) : undefined;
}

/** The user and password of a URL with credentials, decoded and as written. */
function urlCredentials(text: string): string[] {
  const parts: string[] = [];
  for (const match of text.matchAll(/[a-z][a-z0-9+.-]*:\/\/([^/@\s:]*)(?::([^/@\s]*))?@/gi)) {
    for (const part of [match[1], match[2]]) {
      if (!part) continue;
      parts.push(part);
      try {
        parts.push(decodeURIComponent(part));
      } catch {
        // Not percent-encoded text: the raw form is enough.
      }
    }
  }
  return parts;
}

function scrubText(text: string, secrets: readonly string[]): string {
  let out = text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, `$1${REDACTED}@`);
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/** A deep copy of the value with every secret redacted (see the module comment). */
export function redactDeep(value: unknown, secrets: readonly string[], key?: string): unknown {
  if (typeof value === 'string') {
    if (key !== undefined && isSensitiveKey(key) && !NOT_SECRET_KEYS.has(key) && value !== REDACTED) return REDACTED;
    return scrubText(value, secrets);
  }
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, secrets));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) out[scrubText(name, secrets)] = redactDeep(item, secrets, name);
    return out;
  }
  return value;
}
