import * as v from 'valibot';

/**
 * The `dd.*` labels an override may set (docs/label-overrides.md): every label the hub reads, but
 * `dd.hook.pre` / `dd.hook.post`. Hooks are shell commands on the Docker host; setting them through
 * the API would turn a containers:update key into command execution, so they stay labels only.
 */
export const OVERRIDABLE_LABELS = [
  'dd.watch',
  'dd.watch.digest',
  'dd.tag.include',
  'dd.tag.exclude',
  'dd.tag.transform',
  'dd.link.template',
  'dd.display.name',
  'dd.display.icon',
  'dd.registry.lookup.image',
  'dd.group',
  'dd.webhook.enabled',
  'dd.updatePolicy.skipTags',
  'dd.updatePolicy.skipDigests',
  'dd.updatePolicy.snoozeUntil',
  'dd.updatePolicy.maturityMode',
  'dd.updatePolicy.maturityMinAgeDays',
  'dd.action.auto',
  'dd.action.include',
  'dd.action.exclude',
  'dd.notification.include',
  'dd.notification.exclude',
  'dd.depends_on',
  'dd.rollback.auto',
  'dd.rollback.window',
  'dd.update.approval',
  'dd.security.block-severity',
] as const;
export type OverridableLabel = (typeof OVERRIDABLE_LABELS)[number];

const KNOWN = new Set<string>(OVERRIDABLE_LABELS);

/** Where an effective value comes from, strongest first: http-interface has no field for it, so this is ours. */
export const LABEL_SOURCES = ['override', 'global-override', 'label', 'default'] as const;
export type LabelSource = (typeof LABEL_SOURCES)[number];

export const EffectiveLabelSchema = v.object({ value: v.string(), source: v.picklist(LABEL_SOURCES) });
export type EffectiveLabel = v.InferOutput<typeof EffectiveLabelSchema>;

/** A map of overridden labels as a request sends it and storage keeps it: known keys, bounded values. */
export const LabelMapSchema = v.pipe(
  v.record(
    v.pipe(
      v.string(),
      v.check((key) => KNOWN.has(key), 'must be a dd.* label the hub reads (docs/label-overrides.md), not dd.hook.*'),
    ),
    v.pipe(v.string(), v.maxLength(1024)),
  ),
  v.check((labels) => Object.keys(labels).length <= OVERRIDABLE_LABELS.length, 'too many labels'),
);
export type LabelMap = v.InferOutput<typeof LabelMapSchema>;

/** A container's labels with the overrides on top, and where each overridable key's value comes from. */
export interface MergedLabels {
  labels: Record<string, string>;
  sources: Partial<Record<OverridableLabel, EffectiveLabel>>;
}

/** Precedence: container override > global override > the container's own label (defaults are the record's). */
export function mergeLabelOverrides(
  own: Readonly<Record<string, string>>,
  overrides: { global?: LabelMap | undefined; container?: LabelMap | undefined },
): MergedLabels {
  const labels = { ...own, ...overrides.global, ...overrides.container };
  const sources: MergedLabels['sources'] = {};
  for (const key of OVERRIDABLE_LABELS) {
    const value = labels[key];
    if (value === undefined) continue;
    const source: LabelSource =
      overrides.container?.[key] !== undefined
        ? 'override'
        : overrides.global?.[key] !== undefined
          ? 'global-override'
          : 'label';
    sources[key] = { value, source };
  }
  return { labels, sources };
}

/**
 * The labels the hub acts on for a stored record: its own labels with the overridden values of
 * `effectiveLabels` on top. Every reader of `dd.*` labels outside the record builder goes through
 * this, so an override reaches triggers, routing, dependencies and rollback without re-creation.
 */
export function actingLabels(container: {
  labels: Readonly<Record<string, string>>;
  effectiveLabels?: Readonly<Record<string, EffectiveLabel>> | undefined;
}): Record<string, string> {
  const labels = { ...container.labels };
  for (const [key, entry] of Object.entries(container.effectiveLabels ?? {}))
    if (entry.source === 'override' || entry.source === 'global-override') labels[key] = entry.value;
  return labels;
}
