import { describe, expect, it } from 'vitest';
import { cvss3BaseScore, severityOfScore } from './severity';

describe('CVSS v3.x base score', () => {
  // Scores as FIRST's CVSS 3.1 calculator gives them.
  it.each([
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N', 5.4],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1],
    ['CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', 7.8],
    ['CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N', 5.9],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', 7.5],
    ['CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N', 1.6],
    ['CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H', 9.9],
    ['CVSS:3.0/AV:N/AC:L/PR:H/UI:R/S:C/C:L/I:L/A:N', 4.8],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', 0],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:U/RL:O', 9.8],
  ])('%s → %d', (vector, score) => {
    expect(cvss3BaseScore(vector)).toBe(score);
  });

  it.each([
    'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
    'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H',
    'CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    'CVSS:3.1/AV:N/AV:L/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:X/C:H/I:H/A:H',
    'CVSS:3.1/AV:N/AC:L/PR:__proto__/UI:N/S:U/C:H/I:H/A:H',
    'AV:N/AC:L/Au:N/C:P/I:P/A:P',
    '',
  ])('%s is not a v3 base vector', (vector) => {
    expect(cvss3BaseScore(vector)).toBeUndefined();
  });

  it('buckets scores as the specification rates them', () => {
    expect([9, 8.9, 7, 6.9, 4, 3.9, 0.1, 0].map(severityOfScore)).toEqual([
      'critical',
      'high',
      'high',
      'medium',
      'medium',
      'low',
      'low',
      'low',
    ]);
  });
});
