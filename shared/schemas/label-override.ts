import * as v from 'valibot';
import { LabelMapSchema, OVERRIDABLE_LABELS } from '../containers/label-overrides';

const Glob = v.pipe(v.string(), v.minLength(1), v.maxLength(256));

/**
 * Which containers a global override applies to: every field given must match (none given: all
 * containers). `agent` and `watcher` read as the `GET /containers` filters do (`__local__` is the
 * hub's own host); `name` and `image` are globs (`*` any run of characters, `?` one), `image`
 * matched against `registry/repository:tag`; `group` is the group of the container's own labels.
 */
export const LabelOverrideSelectorSchema = v.strictObject({
  name: v.optional(Glob),
  image: v.optional(Glob),
  agent: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(63))),
  watcher: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
  group: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(256))),
});
export type LabelOverrideSelector = v.InferOutput<typeof LabelOverrideSelectorSchema>;

/** Body of POST /label-overrides and PUT /label-overrides/{id}. */
export const GlobalLabelOverrideBodySchema = v.strictObject({
  selector: LabelOverrideSelectorSchema,
  labels: v.pipe(
    LabelMapSchema,
    v.check((labels) => Object.keys(labels).length > 0, 'must set at least one label'),
  ),
});

/** A stored global override; also what the routes answer. */
export const GlobalLabelOverrideSchema = v.object({
  id: v.pipe(v.string(), v.regex(/^[a-z0-9]{12}$/)),
  selector: LabelOverrideSelectorSchema,
  labels: LabelMapSchema,
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type GlobalLabelOverride = v.InferOutput<typeof GlobalLabelOverrideSchema>;

/** Body of PUT /containers/{id}/label-overrides: the whole map, replacing the one stored. */
export const ContainerLabelOverridesBodySchema = v.strictObject({ labels: LabelMapSchema });

/** What GET/PUT /containers/{id}/label-overrides answer. */
export const ContainerLabelOverridesSchema = v.object({
  containerId: v.string(),
  /** The key the overrides are kept under (`agent::watcher::name`): a re-created container keeps them. */
  identity: v.string(),
  labels: LabelMapSchema,
  /** The global overrides whose selector matches this container, in the order they apply. */
  globalOverrides: v.array(v.string()),
});

/**
 * Body of PATCH /containers/{id}/label-overrides: some keys set, some cleared, the others kept (PUT
 * replaces the whole map). A key may not be both set and cleared.
 */
export const ContainerLabelOverridesPatchSchema = v.pipe(
  v.strictObject({
    set: v.optional(LabelMapSchema),
    unset: v.optional(v.pipe(v.array(v.picklist(OVERRIDABLE_LABELS)), v.maxLength(OVERRIDABLE_LABELS.length))),
  }),
  v.check(
    (body) => Object.keys(body.set ?? {}).length + (body.unset?.length ?? 0) > 0,
    'must set or unset at least one label',
  ),
  v.check((body) => !(body.unset ?? []).some((key) => key in (body.set ?? {})), 'a label cannot be both set and unset'),
);
