import { describe, expect, it } from 'vitest';
import { resolveClientAddress } from './node-connection';

describe('node connection: client address', () => {
  it('uses the socket peer and ignores X-Forwarded-For without trusted proxies', () => {
    expect(resolveClientAddress('10.0.0.5', '1.2.3.4', 0)).toBe('10.0.0.5');
    expect(resolveClientAddress('::ffff:127.0.0.1', undefined, 0)).toBe('127.0.0.1');
    expect(resolveClientAddress('::1', undefined, 0)).toBe('::1');
    expect(resolveClientAddress(undefined, undefined, 0)).toBeUndefined();
  });

  it('takes the entry DD_SERVER_TRUSTPROXY hops from the right', () => {
    const header = 'spoofed, 203.0.113.7, 10.0.0.2';
    expect(resolveClientAddress('10.0.0.1', header, 1)).toBe('10.0.0.2');
    expect(resolveClientAddress('10.0.0.1', header, 2)).toBe('203.0.113.7');
    // Fewer entries than hops: the leftmost, as Express does.
    expect(resolveClientAddress('10.0.0.1', '203.0.113.7', 3)).toBe('203.0.113.7');
    expect(resolveClientAddress('10.0.0.1', undefined, 1)).toBe('10.0.0.1');
    expect(resolveClientAddress('10.0.0.1', ' , ', 1)).toBe('10.0.0.1');
  });

  it('normalizes ports and brackets, and falls back to the socket for junk', () => {
    expect(resolveClientAddress('10.0.0.1', '203.0.113.7:5123', 1)).toBe('203.0.113.7');
    expect(resolveClientAddress('10.0.0.1', '[2001:DB8::1]:443', 1)).toBe('2001:db8::1');
    expect(resolveClientAddress('10.0.0.1', 'unknown', 1)).toBe('10.0.0.1');
    expect(resolveClientAddress('10.0.0.1', `${'1'.repeat(100)}`, 1)).toBe('10.0.0.1');
  });
});
