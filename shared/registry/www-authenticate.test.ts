import { describe, expect, it } from 'vitest';
import { parseWwwAuthenticate } from './www-authenticate';

describe('parseWwwAuthenticate', () => {
  it('reads a Docker Hub style Bearer challenge', () => {
    expect(
      parseWwwAuthenticate(
        'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"',
      ),
    ).toEqual([
      {
        scheme: 'bearer',
        params: {
          realm: 'https://auth.docker.io/token',
          service: 'registry.docker.io',
          scope: 'repository:library/nginx:pull',
        },
      },
    ]);
  });

  it('reads several challenges, token values and escaped quotes', () => {
    const parsed = parseWwwAuthenticate('Basic realm="Registry \\"x\\"", Bearer realm=https://a/token, service=svc');
    expect(parsed.map((c) => c.scheme)).toEqual(['basic', 'bearer']);
    expect(parsed[0]?.params.realm).toBe('Registry "x"');
    expect(parsed[1]?.params).toEqual({ realm: 'https://a/token', service: 'svc' });
  });

  it.each([
    ['an unterminated quote', 'Bearer realm="https://a'],
    ['an oversized header', `Bearer realm="${'a'.repeat(5000)}"`],
    ['too many parameters', `Bearer ${Array.from({ length: 40 }, (_, i) => `p${i}=x`).join(',')}`],
    ['garbage', '=== ,,, "'],
    ['nothing', ''],
  ])('gives no usable challenge for %s, quickly', (_name, header) => {
    const started = performance.now();
    const parsed = parseWwwAuthenticate(header);
    expect(
      parsed.every((challenge) => challenge.params.realm === undefined || challenge.params.realm.length < 4096),
    ).toBe(true);
    expect(parsed.find((c) => c.scheme === 'bearer')?.params.realm).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('does not let a parameter named __proto__ reach the prototype', () => {
    const [challenge] = parseWwwAuthenticate('Bearer __proto__="x",realm="https://r"');
    expect(challenge?.params.realm).toBe('https://r');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
