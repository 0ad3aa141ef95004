import * as v from 'valibot';
import { errorMessage } from '../error-message';
import { parseImageReference } from '../registry/image-reference';
import type { UpdatePolicy } from '../schemas/update-policy';
import { UpdatePolicySchema } from '../schemas/update-policy';

/** What a container's `dd.*` labels say (http-interface §9.7: only `dd.*` labels are read). */
export interface ContainerLabels {
  /** `dd.watch`; undefined leaves it to the watcher's WATCHBYDEFAULT. */
  watch: boolean | undefined;
  /** `dd.watch.digest`; undefined means: digests of non-version tags only. */
  watchDigest: boolean | undefined;
  includeTags: string | undefined;
  excludeTags: string | undefined;
  transformTags: string | undefined;
  linkTemplate: string | undefined;
  displayName: string | undefined;
  displayIcon: string | undefined;
  /** `dd.registry.lookup.image`: where to look for updates instead of the image's own repository. */
  lookupImage: string | undefined;
  /** `dd.group`, else the compose project. */
  group: string | undefined;
  /** `dd.webhook.enabled=false` closes the per-container webhook routes. */
  webhookEnabled: boolean;
  /** Policy set by `dd.updatePolicy.*` labels; the API's update-policy changes are stored apart and win. */
  labelPolicy: UpdatePolicy;
  /** Labels that could not be read, with why: shown on the container, never fatal. */
  problems: string[];
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

function flag(value: string | undefined, label: string, problems: string[]): boolean | undefined {
  if (value === undefined) return undefined;
  const word = value.trim().toLowerCase();
  if (TRUE.has(word)) return true;
  if (FALSE.has(word)) return false;
  problems.push(`${label} must be true or false`);
  return undefined;
}

const list = (value: string | undefined) =>
  value
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** No `dd.updatePolicy.*` label (most containers): one frozen object, the record's updatePolicy, for them all (issue 30 item 3). */
const NO_LABEL_POLICY: UpdatePolicy = Object.freeze({});

/** `dd.updatePolicy.skipTags`, `.skipDigests`, `.snoozeUntil`, `.maturityMode`, `.maturityMinAgeDays`. */
function labelPolicy(labels: Record<string, string>, problems: string[]): UpdatePolicy {
  const raw = {
    skipTags: list(labels['dd.updatePolicy.skipTags']),
    skipDigests: list(labels['dd.updatePolicy.skipDigests']),
    snoozeUntil: labels['dd.updatePolicy.snoozeUntil'],
    maturityMode: labels['dd.updatePolicy.maturityMode'],
    maturityMinAgeDays:
      labels['dd.updatePolicy.maturityMinAgeDays'] === undefined
        ? undefined
        : Number(labels['dd.updatePolicy.maturityMinAgeDays']),
  };
  const defined = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined));
  if (Object.keys(defined).length === 0) return NO_LABEL_POLICY;
  const result = v.safeParse(UpdatePolicySchema, defined);
  if (result.success) return result.output;
  problems.push(`dd.updatePolicy: ${result.issues[0]?.message ?? 'invalid'}`);
  return {};
}

export function readContainerLabels(labels: Record<string, string>): ContainerLabels {
  const problems: string[] = [];
  const lookupImage = labels['dd.registry.lookup.image']?.trim() || undefined;
  if (lookupImage) {
    try {
      parseImageReference(lookupImage);
    } catch (error) {
      problems.push(`dd.registry.lookup.image: ${errorMessage(error)}`);
    }
  }
  return {
    watch: flag(labels['dd.watch'], 'dd.watch', problems),
    watchDigest: flag(labels['dd.watch.digest'], 'dd.watch.digest', problems),
    includeTags: labels['dd.tag.include'] || undefined,
    excludeTags: labels['dd.tag.exclude'] || undefined,
    transformTags: labels['dd.tag.transform'] || undefined,
    linkTemplate: labels['dd.link.template'] || undefined,
    displayName: labels['dd.display.name'] || undefined,
    displayIcon: labels['dd.display.icon'] || undefined,
    lookupImage: problems.some((problem) => problem.startsWith('dd.registry.lookup.image')) ? undefined : lookupImage,
    group: labels['dd.group'] || labels['com.docker.compose.project'] || undefined,
    webhookEnabled: flag(labels['dd.webhook.enabled'], 'dd.webhook.enabled', problems) ?? true,
    labelPolicy: labelPolicy(labels, problems),
    problems,
  };
}
