import type { Storage } from 'unstorage';
import { imageOf } from '../../../shared/containers/container-record';
import { type LabelMap, LabelMapSchema } from '../../../shared/containers/label-overrides';
import type { Logger } from '../../../shared/logging/logger';
import {
  type GlobalLabelOverride,
  GlobalLabelOverrideSchema,
  type LabelOverrideSelector,
} from '../../../shared/schemas/label-override';
import { LOCAL_AGENT } from '../../../shared/update/update-clock';
import { matchesGlob } from './glob';
import { readValidated } from './validated-storage';

// Identities hold '::' and names: encoded so they stay one key segment on every driver.
const containerKey = (identity: string) => `label-overrides:containers:${encodeURIComponent(identity)}`;
const globalKey = (id: string) => `label-overrides:global:${id}`;

/** What a selector is matched against: the container as its own labels describe it. */
export interface OverrideTarget {
  name: string;
  agent?: string | undefined;
  watcher: string;
  image: Parameters<typeof imageOf>[0]['image'];
  /** Its own labels: `group` is read from them, not from an override (an override cannot move itself). */
  labels: Readonly<Record<string, string>>;
}

export interface ResolvedOverrides {
  container: LabelMap | undefined;
  /** The matching global overrides merged, later ones winning on the same key. */
  global: LabelMap | undefined;
  globalIds: string[];
}

export interface LabelOverrideStore {
  load(): Promise<void>;
  ofIdentity(identity: string): LabelMap | undefined;
  /** Every identity's overrides, by identity, including those of containers gone for now. */
  byIdentity(): [identity: string, labels: LabelMap][];
  /** An empty map removes the entry. */
  setOfIdentity(identity: string, labels: LabelMap): Promise<void>;
  /** Oldest first: the order they apply in. */
  globals(): GlobalLabelOverride[];
  global(id: string): GlobalLabelOverride | undefined;
  putGlobal(override: GlobalLabelOverride): Promise<void>;
  removeGlobal(id: string): Promise<void>;
  resolve(identity: string, target: OverrideTarget): ResolvedOverrides;
  /** Moves with every change in memory (set, cleared, replaced): what resolve() answers may differ since. */
  revision(): number;
}

export function selectorMatches(selector: LabelOverrideSelector, target: OverrideTarget): boolean {
  if (selector.agent !== undefined && selector.agent !== (target.agent ?? LOCAL_AGENT)) return false;
  if (selector.watcher !== undefined && selector.watcher !== target.watcher) return false;
  if (selector.name !== undefined && !matchesGlob(selector.name, target.name.replace(/^\//, ''))) return false;
  if (selector.image !== undefined && !matchesGlob(selector.image, imageOf(target))) return false;
  if (selector.group !== undefined) {
    const group = target.labels['dd.group'] || target.labels['com.docker.compose.project'];
    if (selector.group !== group) return false;
  }
  return true;
}

const byAge = (a: GlobalLabelOverride, b: GlobalLabelOverride) =>
  a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

/** Label overrides (docs/label-overrides.md): per container identity and global by selector, in memory and written through. */
export function createLabelOverrideStore(storage: Storage, logger: Logger): LabelOverrideStore {
  const byIdentity = new Map<string, LabelMap>();
  const globals = new Map<string, GlobalLabelOverride>();
  let revision = 0;
  return {
    async load() {
      for (const key of await storage.getKeys('label-overrides:containers')) {
        const labels = await readValidated(storage, key, LabelMapSchema, logger);
        if (labels) byIdentity.set(decodeURIComponent(key.slice('label-overrides:containers:'.length)), labels);
      }
      for (const key of await storage.getKeys('label-overrides:global')) {
        const override = await readValidated(storage, key, GlobalLabelOverrideSchema, logger);
        if (override) globals.set(override.id, override);
      }
    },
    ofIdentity: (identity) => byIdentity.get(identity),
    byIdentity: () => [...byIdentity].sort(([a], [b]) => a.localeCompare(b)),
    async setOfIdentity(identity, labels) {
      if (Object.keys(labels).length === 0) {
        await storage.removeItem(containerKey(identity));
        byIdentity.delete(identity);
        revision += 1;
        return;
      }
      await storage.setItem(containerKey(identity), labels);
      byIdentity.set(identity, labels);
      revision += 1;
    },
    globals: () => [...globals.values()].sort(byAge),
    global: (id) => globals.get(id),
    async putGlobal(override) {
      await storage.setItem(globalKey(override.id), override);
      globals.set(override.id, override);
      revision += 1;
    },
    async removeGlobal(id) {
      await storage.removeItem(globalKey(id));
      globals.delete(id);
      revision += 1;
    },
    resolve(identity, target) {
      const matching = [...globals.values()].sort(byAge).filter((o) => selectorMatches(o.selector, target));
      const global = matching.length > 0 ? Object.assign({}, ...matching.map((o) => o.labels)) : undefined;
      return { container: byIdentity.get(identity), global, globalIds: matching.map((o) => o.id) };
    },
    revision: () => revision,
  };
}
