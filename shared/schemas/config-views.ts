import * as v from 'valibot';

// The configuration routes' answers (docs/configuration-file.md): the hub validates with them and
// the web UI's administration page is typed from them.

export const ConfigProblemSchema = v.object({ variable: v.string(), message: v.string() });
export const ConfigVariableSchema = v.object({
  name: v.string(),
  value: v.optional(v.string()),
  source: v.picklist(['env', 'file', 'default']),
});
/** GET /api/v1/config: the file, every variable with its source (secrets masked), what needs a restart. */
export const ConfigViewSchema = v.object({
  file: v.nullable(v.object({ path: v.string(), writable: v.boolean(), content: v.string() })),
  variables: v.array(ConfigVariableSchema),
  restartRequired: v.array(v.string()),
  effective: v.record(v.string(), v.unknown()),
});
/** POST /api/v1/config/validate. */
export const ValidationSchema = v.object({
  valid: v.boolean(),
  problems: v.array(ConfigProblemSchema),
  variables: v.array(v.string()),
  overridden: v.array(v.string()),
});
/** PUT /api/v1/config and POST /config/reload. */
export const ReloadSchema = v.object({
  applied: v.array(v.string()),
  restartRequired: v.array(v.string()),
  backup: v.optional(v.string()),
});

/** One registry provider of GET /api/v1/registries, its configuration masked. */
export const RegistrySchema = v.object({
  id: v.string(),
  type: v.string(),
  name: v.string(),
  configured: v.boolean(),
  configuration: v.record(v.string(), v.unknown()),
});
