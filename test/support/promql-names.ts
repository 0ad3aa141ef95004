/**
 * The series names a PromQL expression selects, for checking dashboards and alert rules against what
 * the hub exports. Enough PromQL for the expressions this project ships: label matchers, ranges,
 * `by`/`without`/`on`/`ignoring`/`group_*` lists and strings are dropped first, then every remaining
 * identifier not called like a function and not a keyword is a series name.
 */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan', 'atan2']);

export function seriesNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/(?<![\w:$.])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    const [, name, call] = match;
    if (name === undefined || call !== undefined || KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names];
}

/**
 * Every series name an exposition in Prometheus text format offers, from its `# TYPE` lines (so a
 * family counts even before its first sample): histograms as `_bucket`, `_sum` and `_count`,
 * summaries as their quantiles, `_sum` and `_count`.
 */
export function exposedSeriesNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (name === undefined) continue;
    const suffixes = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] }[type ?? ''] ?? [''];
    for (const suffix of suffixes) names.add(`${name}${suffix}`);
  }
  return names;
}
