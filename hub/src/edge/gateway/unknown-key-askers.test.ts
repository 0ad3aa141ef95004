import { describe, expect, it } from 'vitest';
import { UnknownKeyAskers } from './unknown-key-askers';

function askers(maxKeys = 100) {
  let now = 1_000_000;
  const followed = new UnknownKeyAskers({ ttlMs: 7_000, maxKeys, now: () => now });
  const advance = (ms: number) => {
    now += ms;
  };
  return { followed, advance };
}

describe('gateways told a key is unknown (issue 33 item 14)', () => {
  it('names the gateways that asked lately, once; a key nobody asked for tells none', () => {
    const { followed, advance } = askers();
    followed.note('k1', 'edge-gateway-1');
    followed.note('k1', 'edge-gateway-7');
    advance(6_000);
    expect(followed.registered('k1')).toEqual(['edge-gateway-1', 'edge-gateway-7']);
    expect(followed.registered('k1')).toEqual([]);
    expect(followed.registered('never-asked')).toEqual([]);
  });

  it('forgets an answer the gateway no longer keeps', () => {
    const { followed, advance } = askers();
    followed.note('k1', 'edge-gateway-1');
    advance(7_001);
    expect(followed.registered('k1')).toEqual([]);
    followed.note('k2', 'edge-gateway-1');
    advance(5_000);
    followed.note('k2', 'edge-gateway-2');
    advance(5_000);
    // edge-gateway-1's answer has expired; edge-gateway-2's has not.
    expect(followed.registered('k2')).toEqual(['edge-gateway-2']);
  });

  it('a gateway that did not say which one it is has every gateway told', () => {
    const { followed } = askers();
    followed.note('k1', 'edge-gateway-1');
    followed.note('k1', undefined);
    followed.note('k1', 'edge-gateway-3');
    expect(followed.registered('k1')).toBe('all');
  });

  it('a flood of unknown keys is bounded: past the cap every registration tells every gateway, until it expires', () => {
    const { followed, advance } = askers(3);
    for (const keyId of ['a', 'b', 'c', 'd', 'e']) followed.note(keyId, 'edge-gateway-1');
    expect(followed.size).toBe(3);
    expect(followed.registered('zzz')).toBe('all');
    advance(7_001);
    expect(followed.registered('zzz')).toEqual([]);
    // The expired ones make room again.
    followed.note('f', 'edge-gateway-2');
    expect(followed.size).toBe(1);
    expect(followed.registered('f')).toEqual(['edge-gateway-2']);
  });
});
