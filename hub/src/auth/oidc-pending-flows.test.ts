import { describe, expect, it } from 'vitest';
import { createPendingFlows, MAX_PENDING_FLOWS, PENDING_FLOW_TTL_MS } from './oidc-pending-flows';

const flow = { providerId: 'corp', nonce: 'n', codeVerifier: 'v' };

describe('pending OIDC flows', () => {
  it('gives a flow back once only', () => {
    const flows = createPendingFlows(() => 1000);
    flows.add('s1', flow);
    expect(flows.take('s1')).toEqual({ ...flow, createdAt: 1000 });
    expect(flows.take('s1')).toBeUndefined();
    expect(flows.take('never-added')).toBeUndefined();
  });

  it('forgets a flow once it has expired', () => {
    let now = 0;
    const flows = createPendingFlows(() => now);
    flows.add('s1', flow);
    now = PENDING_FLOW_TTL_MS;
    expect(flows.take('s1')).toBeUndefined();
  });

  it('drops the oldest flow beyond the cap, and expired ones as new flows arrive', () => {
    let now = 0;
    const flows = createPendingFlows(() => now);
    for (let i = 0; i <= MAX_PENDING_FLOWS; i++) flows.add(`s${i}`, flow);
    expect(flows.take('s0')).toBeUndefined();
    expect(flows.take('s1')).toBeDefined();
    now = PENDING_FLOW_TTL_MS + 1;
    flows.add('fresh', flow);
    now = 0;
    // Swept when `fresh` arrived: with the clock set back it would otherwise still be valid.
    expect(flows.take('s2')).toBeUndefined();
    expect(flows.take('fresh')).toBeDefined();
  });
});
