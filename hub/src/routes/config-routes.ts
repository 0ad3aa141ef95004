import * as v from 'valibot';
import { stringify } from 'yaml';
import { ConfigViewSchema, ReloadSchema, ValidationSchema } from '../../../shared/schemas/config-views';
import { ConfigFileError } from '../config/config-file';
import { type ConfigService, ConfigUnavailableError } from '../config/config-service';
import { HttpError } from '../http/http-error';
import type { RouteGroup } from '../http/route-group';
import type { HubDeps } from '../hub-deps';
import { describePrincipal } from './system-routes';

/** The configuration routes (docs/configuration-file.md): the file of DD_CONFIG_FILE, read, checked, written, reloaded. */
export interface ConfigRoutesDeps {
  configuration: ConfigService;
  runtime: HubDeps['runtime'];
}

/** A file is small: 256 KiB of YAML is far more than every variable of the hub. */
const MAX_CONTENT = 262_144;
/** The file's text (YAML; JSON is YAML too), or its variables as a JSON object of the same shape. */
const ConfigBodySchema = v.pipe(
  v.strictObject({
    content: v.optional(v.pipe(v.string(), v.maxLength(MAX_CONTENT, `must be at most ${MAX_CONTENT} characters`))),
    // Checked as the file's mapping is (scalars, or mappings extending the name), once written as YAML.
    variables: v.optional(v.record(v.string(), v.unknown())),
  }),
  v.check(
    (body) => (body.content === undefined) !== (body.variables === undefined),
    'give either content (the YAML text) or variables (a JSON object)',
  ),
);

const EditorBodySchema = v.strictObject({
  /**
   * KEY → value of `<PREFIX>_<NAME>_<KEY>`; a value sent as a read showed it (`***`, `https://host/***`)
   * keeps the file's value, unless it is a secret whose URL or host changes here (400: send it again).
   */
  values: v.pipe(
    v.record(
      v.pipe(v.string(), v.regex(/^[A-Za-z0-9]{1,64}$/, 'a key is letters and digits')),
      v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(65_536)),
    ),
    v.check((values) => Object.keys(values).length > 0, 'give at least one value'),
  ),
});

/** A provider's name in its variables: `my-mirror` is MY_MIRROR (provider-variables.ts). */
const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/i;
const TYPE = /^[a-z0-9]{1,32}$/i;
const segment = (text: string) => text.toUpperCase().replace(/-/g, '_');

function nameParam(value: string | undefined, pattern: RegExp, what: string): string {
  if (value === undefined || !pattern.test(value)) throw new HttpError(400, `Invalid ${what}`, { parameter: what });
  return value;
}

function textOf(body: v.InferOutput<typeof ConfigBodySchema>): string {
  return body.content ?? stringify(body.variables ?? {});
}

const UNAVAILABLE_STATUS = { 'no-file': 409, 'read-only': 403, 'not-in-file': 404 } as const;

/** The service's refusals as http-interface §2.15 answers. */
async function answer<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ConfigFileError)
      throw new HttpError(400, 'Invalid configuration', { problems: error.problems.slice(0, 50) });
    if (error instanceof ConfigUnavailableError)
      throw new HttpError(UNAVAILABLE_STATUS[error.reason], error.message, { reason: error.reason });
    throw error;
  }
}

export function registerConfigRoutes(api: RouteGroup, deps: ConfigRoutesDeps): void {
  const { configuration } = deps;
  const unavailable = 'No configuration file (DD_CONFIG_FILE), or none on this runtime';
  api.add(
    {
      method: 'get',
      path: '/config',
      access: 'admin',
      tag: 'config',
      summary: 'The configuration: each variable with its source (env, file, default), secrets masked',
      response: ConfigViewSchema,
    },
    async (c) => c.json(await configuration.read()),
  );
  api.add(
    {
      method: 'post',
      path: '/config/validate',
      access: 'admin',
      tag: 'config',
      summary: 'Checks a configuration file without applying it; answers its problems',
      body: ConfigBodySchema,
      response: ValidationSchema,
      statuses: { 400: 'Invalid body' },
    },
    async (c, { body }) => c.json(await configuration.validate(textOf(body))),
  );
  api.add(
    {
      method: 'post',
      path: '/config/reload',
      access: 'admin',
      tag: 'config',
      summary: 'Re-reads the file and applies it: watchers, triggers, registries re-created',
      response: ReloadSchema,
      statuses: { 400: 'The file is invalid (nothing changed)', 409: unavailable },
    },
    async (c) => c.json(await answer(() => configuration.reload(describePrincipal(c.get('principal'))))),
  );
  api.add(
    {
      method: 'put',
      path: '/config',
      access: 'admin',
      tag: 'config',
      summary: 'Writes the file atomically (the previous one kept as a backup), then reloads',
      body: ConfigBodySchema,
      response: ReloadSchema,
      statuses: {
        400: 'Invalid body or configuration (nothing written)',
        403: 'The file is read-only',
        409: unavailable,
      },
    },
    async (c, { body }) =>
      c.json(await answer(() => configuration.write(textOf(body), describePrincipal(c.get('principal'))))),
  );

  // The editors: one watcher, trigger or action, through the same write and reload.
  const editors: {
    path: string;
    what: string;
    prefix: (c: { req: { param(name: string): string | undefined } }) => string;
  }[] = [
    {
      path: '/config/watchers/:name',
      what: 'watcher',
      prefix: (c) => `DD_WATCHER_${segment(nameParam(c.req.param('name'), NAME, 'name'))}_`,
    },
    {
      path: '/config/triggers/:type/:name',
      what: 'notification trigger',
      prefix: (c) =>
        `DD_NOTIFICATION_${segment(nameParam(c.req.param('type'), TYPE, 'type'))}_${segment(nameParam(c.req.param('name'), NAME, 'name'))}_`,
    },
    {
      path: '/config/actions/:name',
      what: 'Docker action trigger',
      prefix: (c) => `DD_ACTION_DOCKER_${segment(nameParam(c.req.param('name'), NAME, 'name'))}_`,
    },
  ];
  for (const editor of editors) {
    api.add(
      {
        method: 'put',
        path: editor.path,
        access: 'admin',
        tag: 'config',
        summary: `Adds or replaces one ${editor.what} in the file, then reloads`,
        body: EditorBodySchema,
        response: ReloadSchema,
        statuses: {
          400: 'Invalid body or configuration (nothing written)',
          403: 'The file is read-only',
          409: unavailable,
        },
      },
      async (c, { body }) => {
        const prefix = editor.prefix(c);
        const values = new Map(
          Object.entries(body.values).map(([key, value]) => [`${prefix}${key.toUpperCase()}`, value]),
        );
        return c.json(await answer(() => configuration.edit(prefix, values, describePrincipal(c.get('principal')))));
      },
    );
    api.add(
      {
        method: 'delete',
        path: editor.path,
        access: 'admin',
        tag: 'config',
        summary: `Removes one ${editor.what} from the file, then reloads`,
        response: ReloadSchema,
        statuses: {
          400: 'Invalid name',
          403: 'The file is read-only',
          404: `No such ${editor.what} in the file`,
          409: unavailable,
        },
      },
      async (c) => {
        const prefix = editor.prefix(c);
        return c.json(await answer(() => configuration.edit(prefix, undefined, describePrincipal(c.get('principal')))));
      },
    );
  }
}
