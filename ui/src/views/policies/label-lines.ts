import { OVERRIDABLE_LABELS } from '../../../../shared/containers/overridable-labels';

const KNOWN = new Set<string>(OVERRIDABLE_LABELS);

/** "key=value" a line into the labels, or the first line that is not one, in words. */
export function parseLabels(text: string): { labels: Record<string, string> } | { problem: string } {
  const labels: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line) continue;
    const at = line.indexOf('=');
    const key = at > 0 ? line.slice(0, at).trim() : '';
    if (!key) return { problem: `“${line}” is not a label: write key=value, such as dd.watch=false.` };
    if (key.startsWith('dd.hook.')) return { problem: `${key} stays a label only: hooks run commands on the host.` };
    if (!KNOWN.has(key))
      return {
        problem: `${key} cannot be overridden. Overridable: dd.watch, dd.tag.include, dd.group, dd.update.approval, …`,
      };
    labels[key] = line.slice(at + 1).trim();
  }
  if (Object.keys(labels).length === 0) return { problem: 'Set at least one label, such as dd.watch=false.' };
  return { labels };
}
