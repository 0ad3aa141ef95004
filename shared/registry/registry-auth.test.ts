import { describe, expect, it } from 'vitest';
import { RegistryAuth } from './registry-auth';
import { RegistryError } from './registry-error';
import { RegistryTransport } from './registry-transport';
import { createConcurrencyLimiter } from './request-limiter';

/** A transport whose fetch records where it was sent and answers every token request. */
function authFor(registryHost: string, trustedRealmHosts: string[] = []) {
  const asked: string[] = [];
  const transport = new RegistryTransport({
    limiter: createConcurrencyLimiter(1),
    fetch: async (url) => {
      asked.push(new URL(url).host);
      return Response.json({ token: 't' });
    },
  });
  return {
    auth: new RegistryAuth({
      transport,
      registryHost,
      credentials: { username: 'u', password: 'p' },
      trustedRealmHosts,
    }),
    asked,
  };
}

async function realmVerdict(
  registryHost: string,
  realm: string,
  trusted: string[] = [],
): Promise<'trusted' | 'refused'> {
  const { auth, asked } = authFor(registryHost, trusted);
  try {
    await auth.answerChallenge(`Bearer realm="${realm}",service="s"`, 'repository:x:pull', undefined);
    return 'trusted';
  } catch (error) {
    expect(error).toBeInstanceOf(RegistryError);
    expect(asked).toEqual([]);
    return 'refused';
  }
}

describe('token realm trust', () => {
  it.each([
    ['registry.gitlab.com', 'https://gitlab.com/jwt/auth', 'trusted'],
    ['ghcr.io', 'https://ghcr.io/token', 'trusted'],
    ['r.example.co.uk', 'https://auth.example.co.uk/token', 'trusted'],
    ['r.example.co.uk', 'https://evil.co.uk/token', 'refused'],
    ['mine.azurecr.io', 'https://mine.azurecr.io/oauth2/token', 'trusted'],
    ['mine.azurecr.io', 'https://theirs.azurecr.io/oauth2/token', 'refused'],
    ['europe-docker.pkg.dev', 'https://attacker-docker.pkg.dev/token', 'refused'],
    ['registry-1.docker.io', 'https://auth.docker.io/token', 'trusted'],
    ['registry.example.com', 'https://attacker.example.net/token', 'refused'],
    ['registry.example.com', 'http://auth.example.com/token', 'refused'],
    ['127.0.0.1:5000', 'http://127.0.0.1:5001/token', 'trusted'],
    ['127.0.0.1:5000', 'http://127.0.0.2/token', 'refused'],
  ] as const)('%s with realm %s is %s, and credentials go nowhere else', async (registry, realm, expected) => {
    expect(await realmVerdict(registry, realm)).toBe(expected);
  });

  it('trusts a host a provider vouches for', async () => {
    expect(await realmVerdict('lscr.io', 'https://ghcr.io/token')).toBe('refused');
    expect(await realmVerdict('lscr.io', 'https://ghcr.io/token', ['ghcr.io'])).toBe('trusted');
  });
});
