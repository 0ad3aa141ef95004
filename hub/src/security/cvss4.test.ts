import { describe, expect, it } from 'vitest';
import { cvss4Score } from './cvss4';
import { MACROVECTOR_SCORES } from './cvss4-macrovectors';
import { severityOf } from './osv/advisory';
import type { OsvAffected, OsvRecord } from './osv/osv-record';

const base = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N';

describe('CVSS v4.0 score', () => {
  // Vector → score pairs as FIRST publishes them: the specification's examples (CVSS-B, -BT and
  // -BTE) and its reference calculator (first.org/cvss/calculator/4-0), spread over the classes.
  it.each([
    [base, 9.3],
    ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H', 10],
    ['CVSS:4.0/AV:L/AC:L/AT:P/PR:L/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N', 7.3],
    ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:L/VI:L/VA:L/SC:L/SI:L/SA:L', 6.9],
    ['CVSS:4.0/AV:P/AC:H/AT:P/PR:H/UI:A/VC:N/VI:N/VA:N/SC:N/SI:N/SA:L', 1],
    ['CVSS:4.0/AV:A/AC:L/AT:N/PR:N/UI:N/VC:H/VI:N/VA:N/SC:N/SI:N/SA:N', 7.1],
    ['CVSS:4.0/AV:L/AC:L/AT:N/PR:L/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H', 9.3],
    ['CVSS:4.0/AV:N/AC:H/AT:P/PR:N/UI:P/VC:L/VI:N/VA:N/SC:N/SI:N/SA:N', 2.3],
    ['CVSS:4.0/AV:L/AC:H/AT:N/PR:L/UI:P/VC:L/VI:H/VA:N/SC:N/SI:H/SA:N', 5.6],
    ['CVSS:4.0/AV:A/AC:L/AT:P/PR:L/UI:N/VC:N/VI:N/VA:H/SC:L/SI:N/SA:H', 7],
    ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:H/SI:H/SA:H', 7.9],
    ['CVSS:4.0/AV:P/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H', 8.6],
    ['CVSS:4.0/AV:P/AC:H/AT:P/PR:H/UI:A/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N', 5.4],
    ['CVSS:4.0/AV:A/AC:H/AT:N/PR:H/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N', 7.3],
    ['CVSS:4.0/AV:L/AC:H/AT:P/PR:H/UI:A/VC:N/VI:N/VA:H/SC:L/SI:N/SA:N', 4.1],
    // A half rounded up: 5.05 unrounded.
    ['CVSS:4.0/AV:N/AC:L/AT:P/PR:N/UI:A/VC:L/VI:L/VA:L/SC:H/SI:H/SA:N', 5.1],
    // No impact anywhere: 0 outright.
    ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N', 0],
    // Threat metrics (CVSS-BT).
    [`${base}/E:U`, 8.1],
    ['CVSS:4.0/AV:N/AC:L/AT:P/PR:N/UI:P/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/E:U', 5.2],
    ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H/E:A', 10],
    // Environmental metrics (CVSS-BE, -BTE): requirements, modified base metrics, safety.
    [`${base}/E:P/CR:H/IR:L/AR:M`, 8.8],
    [`${base}/MAV:P/MAC:H`, 5.4],
    ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H/MSI:S/MSA:S', 10],
    ['CVSS:4.0/AV:N/AC:H/AT:P/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/E:P/MAC:L/MAT:N/MVC:N/MVI:N/MVA:L', 5.5],
    [`${base}/MUI:A/MVC:N/MVI:N/MVA:L/MSC:N/MSI:N/MSA:N`, 5.1],
    [`${base}/MUI:P/MVC:N/MVI:H/MVA:N/MSC:N/MSI:N/MSA:N`, 7.1],
    // Supplemental metrics never change the score; X is "not defined".
    [`${base}/E:X/CR:X/MAV:X/S:P/AU:Y/R:I/V:C/RE:H/U:Red`, 9.3],
  ])('%s → %d', (vector, score) => {
    expect(cvss4Score(vector)).toBe(score);
  });

  it('holds the 270 MacroVectors of the specification, every class combination', () => {
    expect(Object.keys(MACROVECTOR_SCORES)).toHaveLength(270);
    for (const [key, score] of Object.entries(MACROVECTOR_SCORES)) {
      expect(key).toMatch(/^[0-2][01][0-2][0-2][0-2][01]$/);
      expect(key[2] === '2' && key[5] === '0').toBe(false);
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThanOrEqual(10);
    }
  });

  it.each([
    '',
    'CVSS:4.0',
    'CVSS:4.0/',
    'cvss:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
    'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N',
    'CVSS:4.0/AV:N/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
    'CVSS:4.0/AV:X/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
    'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:S/SA:N',
    `${base}/`,
    `${base}/E:Q`,
    `${base}/XX:Y`,
    `${base}/__proto__:A`,
    `${base}/MAV:N:N`,
  ])('%j is not a v4.0 vector', (vector) => {
    expect(cvss4Score(vector)).toBeUndefined();
  });
});

describe('the severity of an advisory', () => {
  const record = (severity: OsvRecord['severity'], label?: string): OsvRecord =>
    ({ id: 'T-1', severity, database_specific: label ? { severity: label } : undefined }) as OsvRecord;
  const affected = {} as OsvAffected;
  const v3 = { type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N' };

  it('takes the v4.0 score over the v3.1 one when both are given', () => {
    expect(severityOf(record([v3, { type: 'CVSS_V4', score: base }]), affected)).toEqual({
      severity: 'critical',
      score: 9.3,
    });
  });

  it('falls back to v3.1, then to the label, when the v4.0 vector is malformed', () => {
    const broken = { type: 'CVSS_V4', score: 'CVSS:4.0/AV:N' };
    expect(severityOf(record([broken, v3]), affected)).toEqual({ severity: 'medium', score: 5.4 });
    expect(severityOf(record([broken], 'HIGH'), affected)).toEqual({ severity: 'high' });
  });
});
