import { MACROVECTOR_SCORES } from './cvss4-macrovectors';

/**
 * The CVSS v4.0 score of a vector (the specification's scoring: equivalence classes, MacroVectors
 * and the interpolation within a MacroVector), as FIRST's reference calculator computes it. Base, threat
 * (`E`) and environmental metrics count; supplemental metrics are parsed and ignored, as the
 * specification says they never change the score. Written from the specification's description;
 * the MacroVector table is the specification's own (`cvss4-macrovectors.ts`).
 */

/** Every metric a v4.0 vector may carry and its allowed values (the specification's vector string table). */
const METRICS: Readonly<Record<string, readonly string[]>> = {
  AV: ['N', 'A', 'L', 'P'],
  AC: ['L', 'H'],
  AT: ['N', 'P'],
  PR: ['N', 'L', 'H'],
  UI: ['N', 'P', 'A'],
  VC: ['H', 'L', 'N'],
  VI: ['H', 'L', 'N'],
  VA: ['H', 'L', 'N'],
  SC: ['H', 'L', 'N'],
  SI: ['H', 'L', 'N'],
  SA: ['H', 'L', 'N'],
  E: ['X', 'A', 'P', 'U'],
  CR: ['X', 'H', 'M', 'L'],
  IR: ['X', 'H', 'M', 'L'],
  AR: ['X', 'H', 'M', 'L'],
  MAV: ['X', 'N', 'A', 'L', 'P'],
  MAC: ['X', 'L', 'H'],
  MAT: ['X', 'N', 'P'],
  MPR: ['X', 'N', 'L', 'H'],
  MUI: ['X', 'N', 'P', 'A'],
  MVC: ['X', 'H', 'L', 'N'],
  MVI: ['X', 'H', 'L', 'N'],
  MVA: ['X', 'H', 'L', 'N'],
  MSC: ['X', 'H', 'L', 'N'],
  MSI: ['X', 'S', 'H', 'L', 'N'],
  MSA: ['X', 'S', 'H', 'L', 'N'],
  S: ['X', 'N', 'P'],
  AU: ['X', 'N', 'Y'],
  R: ['X', 'A', 'U', 'I'],
  V: ['X', 'D', 'C'],
  RE: ['X', 'L', 'M', 'H'],
  U: ['X', 'Clear', 'Green', 'Amber', 'Red'],
};
const BASE = ['AV', 'AC', 'AT', 'PR', 'UI', 'VC', 'VI', 'VA', 'SC', 'SI', 'SA'] as const;
type Metric = (typeof BASE)[number] | 'E' | 'CR' | 'IR' | 'AR';
type Effective = Record<Metric, string>;

/**
 * Parses a `CVSS:4.0/…` vector into the values the score uses: each base metric replaced by its
 * modified metric when that is set, `E`, `CR`, `IR` and `AR` at their worst case when absent or `X`
 * (the specification's defaults). Undefined when a base metric is missing, a metric is unknown, repeated or out
 * of range. The order of the metrics is not checked: a reordered vector means the same thing.
 */
function parse(vector: string): Effective | undefined {
  const parts = vector.trim().split('/');
  if (parts[0] !== 'CVSS:4.0') return undefined;
  const given = new Map<string, string>();
  for (const part of parts.slice(1)) {
    const [name, value, extra] = part.split(':');
    if (name === undefined || value === undefined || extra !== undefined || given.has(name)) return undefined;
    if (!Object.hasOwn(METRICS, name) || !METRICS[name]?.includes(value)) return undefined;
    given.set(name, value);
  }
  if (BASE.some((name) => !given.has(name))) return undefined;
  const effective = {} as Effective;
  for (const name of BASE) {
    const modified = given.get(`M${name}`);
    effective[name] = modified !== undefined && modified !== 'X' ? modified : (given.get(name) as string);
  }
  const worst = (name: 'E' | 'CR' | 'IR' | 'AR', value: string) => {
    const set = given.get(name);
    return set === undefined || set === 'X' ? value : set;
  };
  effective.E = worst('E', 'A');
  effective.CR = worst('CR', 'H');
  effective.IR = worst('IR', 'H');
  effective.AR = worst('AR', 'H');
  return effective;
}

/** The six equivalence-class levels (the specification's equivalence sets). `SI` and `SA` may be `S` (from `MSI`/`MSA`: safety). */
function macroVector(m: Effective): [number, number, number, number, number, number] {
  const eq1 =
    m.AV === 'N' && m.PR === 'N' && m.UI === 'N'
      ? 0
      : (m.AV === 'N' || m.PR === 'N' || m.UI === 'N') && m.AV !== 'P'
        ? 1
        : 2;
  const eq2 = m.AC === 'L' && m.AT === 'N' ? 0 : 1;
  const eq3 = m.VC === 'H' && m.VI === 'H' ? 0 : m.VC === 'H' || m.VI === 'H' || m.VA === 'H' ? 1 : 2;
  const eq4 = m.SI === 'S' || m.SA === 'S' ? 0 : m.SC === 'H' || m.SI === 'H' || m.SA === 'H' ? 1 : 2;
  const eq5 = m.E === 'A' ? 0 : m.E === 'P' ? 1 : 2;
  const eq6 =
    (m.CR === 'H' && m.VC === 'H') || (m.IR === 'H' && m.VI === 'H') || (m.AR === 'H' && m.VA === 'H') ? 0 : 1;
  return [eq1, eq2, eq3, eq4, eq5, eq6];
}

/** Each value's step of severity below the metric's worst value (the reference's levels, in tenths). */
const LEVELS: Readonly<Record<Exclude<Metric, 'E'>, Readonly<Record<string, number>>>> = {
  AV: { N: 0, A: 1, L: 2, P: 3 },
  PR: { N: 0, L: 1, H: 2 },
  UI: { N: 0, P: 1, A: 2 },
  AC: { L: 0, H: 1 },
  AT: { N: 0, P: 1 },
  VC: { H: 0, L: 1, N: 2 },
  VI: { H: 0, L: 1, N: 2 },
  VA: { H: 0, L: 1, N: 2 },
  SC: { H: 1, L: 2, N: 3 },
  SI: { S: 0, H: 1, L: 2, N: 3 },
  SA: { S: 0, H: 1, L: 2, N: 3 },
  CR: { H: 0, M: 1, L: 2 },
  IR: { H: 0, M: 1, L: 2 },
  AR: { H: 0, M: 1, L: 2 },
};

/**
 * The highest-severity vectors of each class level: a MacroVector's maximal vectors are
 * their combinations. EQ3 and EQ6 are joint (keyed `eq3` then `eq6`); EQ5 (`E`) adds no distance.
 */
const HIGHEST = {
  eq1: [
    ['AV:N/PR:N/UI:N'],
    ['AV:A/PR:N/UI:N', 'AV:N/PR:L/UI:N', 'AV:N/PR:N/UI:P'],
    ['AV:P/PR:N/UI:N', 'AV:A/PR:L/UI:P'],
  ],
  eq2: [['AC:L/AT:N'], ['AC:H/AT:N', 'AC:L/AT:P']],
  eq3eq6: [
    [['VC:H/VI:H/VA:H/CR:H/IR:H/AR:H'], ['VC:H/VI:H/VA:L/CR:M/IR:M/AR:H', 'VC:H/VI:H/VA:H/CR:M/IR:M/AR:M']],
    [
      ['VC:L/VI:H/VA:H/CR:H/IR:H/AR:H', 'VC:H/VI:L/VA:H/CR:H/IR:H/AR:H'],
      [
        'VC:L/VI:H/VA:L/CR:H/IR:M/AR:H',
        'VC:L/VI:H/VA:H/CR:H/IR:M/AR:M',
        'VC:H/VI:L/VA:H/CR:M/IR:H/AR:M',
        'VC:H/VI:L/VA:L/CR:M/IR:H/AR:H',
        'VC:L/VI:L/VA:H/CR:H/IR:H/AR:M',
      ],
    ],
    [[], ['VC:L/VI:L/VA:L/CR:H/IR:H/AR:H']],
  ],
  eq4: [['SC:H/SI:S/SA:S'], ['SC:H/SI:H/SA:H'], ['SC:L/SI:L/SA:L']],
} as const;

/** The depth of each class level: its largest severity distance plus one, in tenths. */
const DEPTH = {
  eq1: [1, 4, 5],
  eq2: [1, 2],
  eq3eq6: [
    [7, 6],
    [8, 8],
    [Number.NaN, 10],
  ],
  eq4: [6, 5, 4],
} as const;

const GROUPS = {
  eq1: ['AV', 'PR', 'UI'],
  eq2: ['AC', 'AT'],
  eq3eq6: ['VC', 'VI', 'VA', 'CR', 'IR', 'AR'],
  eq4: ['SC', 'SI', 'SA'],
} as const satisfies Record<string, readonly Exclude<Metric, 'E'>[]>;

const pairs = (text: string) =>
  Object.fromEntries(text.split('/').map((pair) => pair.split(':'))) as Record<string, string>;

function maximalVectors(eq1: number, eq2: number, eq3: number, eq4: number, eq6: number): Record<string, string>[] {
  const vectors: Record<string, string>[] = [];
  for (const a of HIGHEST.eq1[eq1] ?? [])
    for (const b of HIGHEST.eq2[eq2] ?? [])
      for (const c of HIGHEST.eq3eq6[eq3]?.[eq6] ?? [])
        for (const d of HIGHEST.eq4[eq4] ?? []) vectors.push(pairs(`${a}/${b}/${c}/${d}`));
  return vectors;
}

/** Round half up to one decimal, past the float noise of the interpolation (the reference's ε). */
const roundScore = (value: number) => Math.round((value + 1e-6) * 10) / 10;

/** The score of a `CVSS:4.0/…` vector, or undefined when it is not a well-formed v4.0 vector. */
export function cvss4Score(vector: string): number | undefined {
  const m = parse(vector);
  if (!m) return undefined;
  // No impact on any system: 0, whatever the rest says.
  if ([m.VC, m.VI, m.VA, m.SC, m.SI, m.SA].every((value) => value === 'N')) return 0;
  const [eq1, eq2, eq3, eq4, eq5, eq6] = macroVector(m);
  const key = (...levels: number[]) => levels.join('');
  const score = MACROVECTOR_SCORES[key(eq1, eq2, eq3, eq4, eq5, eq6)];
  if (score === undefined) return undefined;

  // The next lower MacroVector along each class: the score available to lose when moving towards it.
  const lower = (k: string) => MACROVECTOR_SCORES[k];
  const eq3eq6Lower =
    eq3 === 0 && eq6 === 0
      ? Math.max(lower(key(eq1, eq2, 0, eq4, eq5, 1)) ?? Number.NaN, lower(key(eq1, eq2, 1, eq4, eq5, 0)) ?? Number.NaN)
      : eq3 === 1 && eq6 === 0
        ? lower(key(eq1, eq2, 1, eq4, eq5, 1))
        : lower(key(eq1, eq2, eq3 + 1, eq4, eq5, eq6));
  const available = {
    eq1: score - (lower(key(eq1 + 1, eq2, eq3, eq4, eq5, eq6)) ?? Number.NaN),
    eq2: score - (lower(key(eq1, eq2 + 1, eq3, eq4, eq5, eq6)) ?? Number.NaN),
    eq3eq6: score - (eq3eq6Lower ?? Number.NaN),
    eq4: score - (lower(key(eq1, eq2, eq3, eq4 + 1, eq5, eq6)) ?? Number.NaN),
    eq5: score - (lower(key(eq1, eq2, eq3, eq4, eq5 + 1, eq6)) ?? Number.NaN),
  };

  // The severity distance from the first maximal vector of the MacroVector the vector is not above.
  const distanceTo = (max: Record<string, string>, name: Exclude<Metric, 'E'>) =>
    (LEVELS[name][m[name]] ?? 0) - (LEVELS[name][max[name] ?? ''] ?? 0);
  const names = Object.keys(LEVELS) as Exclude<Metric, 'E'>[];
  const maxima = maximalVectors(eq1, eq2, eq3, eq4, eq6);
  const max = maxima.find((candidate) => names.every((name) => distanceTo(candidate, name) >= 0)) ?? maxima.at(-1);
  if (!max) return undefined;
  const distance = (group: keyof typeof GROUPS) => GROUPS[group].reduce((sum, name) => sum + distanceTo(max, name), 0);
  const depth = {
    eq1: DEPTH.eq1[eq1] as number,
    eq2: DEPTH.eq2[eq2] as number,
    eq3eq6: DEPTH.eq3eq6[eq3]?.[eq6] as number,
    eq4: DEPTH.eq4[eq4] as number,
  };

  // Each class with a lower MacroVector moves the score down by its share of the distance; the mean
  // of those moves is taken (EQ5 counts among them with a share of 0).
  let moves = 0;
  let total = 0;
  for (const group of ['eq1', 'eq2', 'eq3eq6', 'eq4'] as const) {
    if (Number.isNaN(available[group])) continue;
    moves++;
    total += available[group] * (distance(group) / depth[group]);
  }
  if (!Number.isNaN(available.eq5)) moves++;
  const mean = moves === 0 ? 0 : total / moves;
  return roundScore(Math.min(10, Math.max(0, score - mean)));
}
