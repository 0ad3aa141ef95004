import { REDACTED } from '../../../shared/redact';
import { HUB_SETTING_VARIABLES } from './hub-settings';
import { maskUrl, maskUrlsIn } from './mask-url';

/**
 * The one table of what each DD_* variable holds, and so how much of its value may be shown
 * (docs/security.md "What is secret"). GET /api/v1/config, the configuration file's text, the
 * trigger views, GET /api/v1/server, the debug dump, configuration errors and the start-up line all
 * ask it. Default-deny: a value is shown only when the table knows it is not secret; a variable the
 * table does not classify is masked whole. test/architecture/variables-classified.test.ts walks every
 * variable the hub reads and fails on one missing here.
 *
 * On Workers, `secret` and `secret-url` variables are set with `wrangler secret put`, never in
 * wrangler.toml's `[vars]` (plain text in the repository and the dashboard): `npm run
 * deploy:workers` refuses a deploy that has one there (docs/workers.md).
 */
export type VariableClass =
  /** Known not to be secret: shown as it is, except the userinfo, path and query of a URL in it. */
  | 'plain'
  /** An endpoint the hub calls: scheme and host shown; its userinfo, path and query masked. */
  | 'url'
  /** A URL that is itself a credential (a webhook URL, a signed download): shown like `url`. */
  | 'secret-url'
  /** A credential: masked whole. */
  | 'secret';

export interface VariableRule {
  class: VariableClass;
  /** What the value is (the deploy check's message, docs/security.md). */
  what: string;
  /** A URL, host or endpoint that the secrets of its group are sent to: changing it needs them again. */
  destination?: true;
  /** The variables that go together (a forge's token and its API); families group by provider. */
  group?: string;
}

const plain = (what: string): VariableRule => ({ class: 'plain', what });
const url = (what: string): VariableRule => ({ class: 'url', what });
const secretUrl = (what: string): VariableRule => ({ class: 'secret-url', what });
const secret = (what: string): VariableRule => ({ class: 'secret', what });
const to = (rule: VariableRule): VariableRule => ({ ...rule, destination: true });
const inGroup = (group: string, rule: VariableRule): VariableRule => ({ ...rule, group });

const SETTING = plain('a setting');
const PATH = plain('a file path');
const TOKEN = secret('a token');
const PASSWORD = secret('a password');
const USER = plain('a user name or id');
const HOST = to(plain('a host or port'));

/** Variables read by their whole name. */
const NAMED: Record<string, VariableRule> = {
  DD_CONFIG_FILE: PATH,
  ...Object.fromEntries(
    [
      ...HUB_SETTING_VARIABLES,
      'DD_SERVER_WEBHOOK_ENABLED',
      'DD_REGISTRY_TIMEOUT',
      'DD_REGISTRY_INSECURE',
      'DD_NOTIFICATION_TIMEOUT',
      'DD_RELEASE_NOTES_TIMEOUT',
      'DD_HOOKS_ENABLED',
      'DD_HOOKS_TIMEOUT',
      'DD_SECURITY_SCANNER',
      'DD_SECURITY_OSV_REFRESH_HOURS',
      'DD_SECURITY_SCAN_HOURS',
      'DD_SECURITY_BLOCK_SEVERITY',
      'DD_LOCAL_WATCHER',
      // The agent's own, skipped by a hub that shares its environment (listen-agent-config.ts).
      'DD_AGENT_LISTEN_HOST',
      // The self-update helper's operation id (updates/self-update).
      'DD_SELF_UPDATE_OPERATION',
    ].map((name) => [name, SETTING]),
  ),
  DD_STORE_PATH: PATH,
  DD_EDGE_AUTHORIZED_KEYS: PATH,
  DD_SECURITY_SCANNER_PATH: PATH,
  DD_SECURITY_OSV_FILE: PATH,
  DD_AGENT_SECRET_FILE: PATH,
  DD_SERVER_METRICS_TOKEN: TOKEN,
  DD_SERVER_WEBHOOK_TOKEN: TOKEN,
  DD_SERVER_WEBHOOK_TOKENS_WATCHALL: TOKEN,
  DD_SERVER_WEBHOOK_TOKENS_WATCH: TOKEN,
  DD_SERVER_WEBHOOK_TOKENS_UPDATE: TOKEN,
  DD_SERVER_WEBHOOK_SECRET: secret('an HMAC key'),
  DD_AGENT_SECRET: secret('a shared secret'),
  DD_STORE_URL: secretUrl('a store URL, which may hold a password'),
  DD_SECURITY_OSV_URL: secretUrl('a download URL, which may hold a key'),
  DD_ICONS_SELFHST_URL: url('an icon set'),
  DD_ICONS_SIMPLEICONS_URL: url('an icon set'),
  DD_ICONS_DASHBOARDICONS_URL: url('an icon set'),
  DD_RELEASE_NOTES_GITHUB_TOKEN: inGroup('DD_RELEASE_NOTES_GITHUB_', TOKEN),
  DD_RELEASE_NOTES_GITHUB_API_URL: inGroup('DD_RELEASE_NOTES_GITHUB_', to(url('a forge API'))),
  DD_RELEASE_NOTES_GITLAB_TOKEN: inGroup('DD_RELEASE_NOTES_GITLAB_', TOKEN),
  DD_RELEASE_NOTES_GITLAB_API_URL: inGroup('DD_RELEASE_NOTES_GITLAB_', to(url('a forge API'))),
  // The hosts' schemes are where their tokens go: an https host turned http needs its token again.
  DD_RELEASE_NOTES_GITHUB_HOSTS: inGroup('DD_RELEASE_NOTES_GITHUB_HOST_', HOST),
  DD_RELEASE_NOTES_GITHUB_HOST_TOKENS: inGroup('DD_RELEASE_NOTES_GITHUB_HOST_', TOKEN),
  DD_RELEASE_NOTES_GITLAB_HOSTS: inGroup('DD_RELEASE_NOTES_GITLAB_HOST_', HOST),
  DD_RELEASE_NOTES_GITLAB_HOST_TOKENS: inGroup('DD_RELEASE_NOTES_GITLAB_HOST_', TOKEN),
};

type Keys = Record<string, VariableRule>;

/**
 * `<prefix>[<TYPE>_]<NAME>_<KEY>` families (provider-variables.ts): KEY is the last segment. A
 * provider's group is every variable of the same prefix, type and name.
 */
interface Family {
  prefix: string;
  /** Keys every type has. */
  keys: Keys;
  /** Keys of one TYPE (the first segment after the prefix). */
  types?: Record<string, Keys>;
}

const NOTIFICATION_COMMON: Keys = Object.fromEntries(
  ['threshold', 'mode', 'once', 'order', 'simpletitle', 'simplebody', 'batchtitle', 'cron'].map((key) => [
    key,
    SETTING,
  ]),
);
const settings = (...keys: string[]): Keys => Object.fromEntries(keys.map((key) => [key, SETTING]));
const WEBHOOK_URL = to(secretUrl('a webhook URL, which holds its token'));
const SERVER_URL = to(url('a server'));

const FAMILIES: readonly Family[] = [
  {
    prefix: 'DD_REGISTRY_',
    keys: {
      ...settings('ratelimit', 'concurrency', 'insecure'),
      cafile: PATH,
      url: to(url('a registry')),
      authurl: to(url('a token service')),
      region: to(plain('an AWS region')),
      login: USER,
      clientid: USER,
      accesskeyid: USER,
      password: PASSWORD,
      token: TOKEN,
      clientsecret: secret('a client secret'),
      secretaccesskey: secret('an AWS secret key'),
      sessiontoken: TOKEN,
    },
  },
  {
    prefix: 'DD_NOTIFICATION_',
    keys: NOTIFICATION_COMMON,
    types: {
      http: {
        url: WEBHOOK_URL,
        method: SETTING,
        user: USER,
        password: PASSWORD,
        bearer: TOKEN,
        headers: secret('headers'),
      },
      ntfy: {
        url: SERVER_URL,
        topic: secret('a topic, which is its access key'),
        ...settings('priority', 'tags', 'markdown', 'cache'),
        token: TOKEN,
        user: USER,
        password: PASSWORD,
      },
      gotify: { url: SERVER_URL, token: TOKEN, ...settings('priority', 'markdown') },
      discord: { url: WEBHOOK_URL, username: SETTING, avatarurl: url('an image') },
      slack: { url: WEBHOOK_URL, token: TOKEN, channel: SETTING },
      telegram: { bottoken: TOKEN, chatid: SETTING, ...settings('parsemode', 'silent'), url: SERVER_URL },
      pushover: {
        token: TOKEN,
        user: secret('a user key'),
        ...settings('device', 'priority', 'retry', 'expire', 'sound'),
      },
      apprise: {
        url: SERVER_URL,
        key: secret('a configuration key'),
        urls: secret('service URLs'),
        ...settings('tag', 'type', 'format'),
      },
      teams: { url: WEBHOOK_URL },
      matrix: { url: SERVER_URL, token: TOKEN, ...settings('roomid', 'msgtype') },
      googlechat: { url: WEBHOOK_URL },
      mattermost: { url: WEBHOOK_URL, ...settings('channel', 'username'), iconurl: url('an image') },
      rocketchat: { url: WEBHOOK_URL, userid: USER, token: TOKEN, ...settings('channel', 'alias', 'emoji') },
      smtp: {
        host: HOST,
        port: HOST,
        user: USER,
        pass: PASSWORD,
        ...settings('from', 'to', 'tls', 'starttls', 'tlsverify'),
      },
      mqtt: {
        url: SERVER_URL,
        user: USER,
        password: PASSWORD,
        ...settings('topic', 'retain', 'qos', 'clientid', 'hass', 'hassprefix', 'tlsverify'),
      },
    },
  },
  {
    prefix: 'DD_ACTION_',
    keys: {},
    types: { docker: settings('backupcount', 'prune', 'healthtimeout', 'auto', 'watcher', 'compose') },
  },
  {
    prefix: 'DD_WATCHER_',
    keys: {
      socket: PATH,
      host: HOST,
      port: HOST,
      // File sources (docs/sources.md): where the image list or the directory of Dockerfiles is.
      file: PATH,
      directory: PATH,
      ...settings('cron', 'jitter', 'watchbydefault', 'watchall', 'composefiles', 'type'),
    },
  },
  {
    prefix: 'DD_AGENT_',
    keys: { host: HOST, port: HOST, protocol: to(SETTING), cafile: PATH, secret: secret('a shared secret') },
  },
  {
    prefix: 'DD_AUTH_',
    keys: {},
    types: {
      basic: {
        user: USER,
        hash: secret('a password hash'),
        totp: secret('a TOTP seed'),
        recovery: secret('recovery codes'),
      },
      oidc: {
        discovery: to(url('an OpenID provider')),
        clientid: USER,
        clientsecret: secret('an OpenID client secret'),
        redirect: url('the callback'),
      },
    },
  },
];

/** The table's rule for a variable; undefined when it does not classify it (then it is masked whole). */
export function classifyVariable(name: string): VariableRule | undefined {
  const named = NAMED[name];
  if (named) return named;
  for (const family of FAMILIES) {
    if (!name.startsWith(family.prefix)) continue;
    const parts = name.slice(family.prefix.length).toLowerCase().split('_');
    const key = parts.at(-1) as string;
    const typed = family.types?.[parts[0] as string];
    const minimum = family.types ? 3 : 2;
    if (parts.length < minimum) return undefined;
    const rule = typed?.[key] ?? family.keys[key];
    return rule && { ...rule, group: name.slice(0, name.length - key.length) };
  }
  return undefined;
}

/** Default-deny: the rule, or `secret` for a variable the table does not know. */
export function variableRule(name: string): VariableRule {
  return classifyVariable(name) ?? secret('a variable the table does not classify');
}

/** Whether the value may be shown as it is (URLs in it aside) and quoted in an error message. */
export function isPlainVariable(name: string): boolean {
  return classifyVariable(name)?.class === 'plain';
}

/** What the variable holds when it is a credential or a URL that is one, else undefined (the Workers deploy check). */
export function secretKind(name: string): string | undefined {
  const rule = classifyVariable(name);
  return rule?.class === 'secret' || rule?.class === 'secret-url' ? rule.what : undefined;
}

/** The value as the API, the log and the debug dump may show it. */
export function showVariable(name: string, value: string): string {
  const { class: kind } = variableRule(name);
  if (kind === 'plain') return maskUrlsIn(value);
  if (kind === 'secret') return REDACTED;
  return maskUrl(value);
}

/** What a configuration error may quote of a refused value: only a plain one, its URLs masked (EnvReaderContext). */
export function quotableValue(name: string, value: string): string | undefined {
  return isPlainVariable(name) ? showVariable(name, value) : undefined;
}
