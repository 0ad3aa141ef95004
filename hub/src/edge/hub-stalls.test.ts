import { describe, expect, it } from 'vitest';
import { HubStalls } from './hub-stalls';

describe('hub stalls', () => {
  it('adds up the lateness of the ticker beyond its tolerance, and nothing for ordinary jitter', () => {
    const stalls = new HubStalls(1_000, 250);
    stalls.tick(0);
    stalls.tick(1_100); // 100 ms late: jitter
    expect(stalls.stalledMs).toBe(0);
    stalls.tick(4_100); // 2 s late
    expect(stalls.stalledMs).toBe(2_000);
    stalls.tick(5_100);
    stalls.tick(6_600); // 500 ms late
    expect(stalls.stalledMs).toBe(2_500);
  });
});
