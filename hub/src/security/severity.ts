/**
 * Severities of findings: the buckets the routes, the summary and the security gate speak in, and
 * the CVSS v3.x base score computed from a vector (CVSS v3.1 specification §7.1 and Appendix A).
 */

import type { Severity } from '../../../shared/security/severities';

export { SEVERITIES, type Severity } from '../../../shared/security/severities';

/** Higher is worse; `unknown` ranks lowest, so a gate at `low` is not tripped by unrated findings. */
export function severityRank(severity: Severity): number {
  return { critical: 4, high: 3, medium: 2, low: 1, unknown: 0 }[severity];
}

/** The qualitative rating of a CVSS score (v3.1 §5); 0 (`None`) counts as low: a finding was still reported. */
export function severityOfScore(score: number): Severity {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  return 'low';
}

const WEIGHTS = {
  AV: { N: 0.85, A: 0.62, L: 0.55, P: 0.2 },
  AC: { L: 0.77, H: 0.44 },
  UI: { N: 0.85, R: 0.62 },
  CIA: { H: 0.56, L: 0.22, N: 0 },
} as const;

/** The specification's Roundup (Appendix A): the smallest one-decimal number ≥ x, free of float noise. */
function roundUp(value: number): number {
  const integer = Math.round(value * 100_000);
  return integer % 10_000 === 0 ? integer / 100_000 : (Math.floor(integer / 10_000) + 1) / 10;
}

/**
 * The base score of a `CVSS:3.0/…` or `CVSS:3.1/…` vector, undefined when a base metric is
 * missing, repeated or out of range. Temporal and environmental metrics are ignored (OSV
 * publishes base vectors).
 */
export function cvss3BaseScore(vector: string): number | undefined {
  const parts = vector.trim().split('/');
  if (!/^CVSS:3\.[01]$/.test(parts[0] ?? '')) return undefined;
  const metrics = new Map<string, string>();
  for (const part of parts.slice(1)) {
    const [name, value, extra] = part.split(':');
    if (name === undefined || value === undefined || extra !== undefined || metrics.has(name)) return undefined;
    metrics.set(name, value);
  }
  const pick = <T extends Record<string, number>>(table: T, name: string) => {
    const value = metrics.get(name);
    return value !== undefined && Object.hasOwn(table, value) ? table[value as keyof T] : undefined;
  };
  const scope = metrics.get('S');
  const av = pick(WEIGHTS.AV, 'AV');
  const ac = pick(WEIGHTS.AC, 'AC');
  const ui = pick(WEIGHTS.UI, 'UI');
  const c = pick(WEIGHTS.CIA, 'C');
  const i = pick(WEIGHTS.CIA, 'I');
  const a = pick(WEIGHTS.CIA, 'A');
  // Privileges weigh more when the scope changes.
  const pr = pick(scope === 'C' ? { N: 0.85, L: 0.68, H: 0.5 } : { N: 0.85, L: 0.62, H: 0.27 }, 'PR');
  if ((scope !== 'U' && scope !== 'C') || [av, ac, ui, c, i, a, pr].some((w) => w === undefined)) return undefined;
  const iss = 1 - (1 - (c as number)) * (1 - (i as number)) * (1 - (a as number));
  const impact = scope === 'U' ? 6.42 * iss : 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15;
  const exploitability = 8.22 * (av as number) * (ac as number) * (pr as number) * (ui as number);
  if (impact <= 0) return 0;
  return scope === 'U'
    ? roundUp(Math.min(impact + exploitability, 10))
    : roundUp(Math.min(1.08 * (impact + exploitability), 10));
}
