import { describe, expect, it } from 'vitest';
import { loadRegistryProviders } from './load-registry-providers';
import type { RegistryProviderContext } from './registry-provider';

const context: RegistryProviderContext = {
  now: Date.now,
  fetch: () => Promise.reject(new Error('no network in this test')),
};

describe('built-in public registries', () => {
  it('load with no variables and reach GitLab, Google and public ECR anonymously', async () => {
    const { builtIn } = await loadRegistryProviders([], context);
    const cases = [
      ['gitlab', 'registry.gitlab.com'],
      ['gcr', 'gcr.io'],
      ['gcr', 'us-docker.pkg.dev'],
      ['ecr', 'public.ecr.aws'],
    ] as const;
    for (const [type, registry] of cases) {
      const provider = builtIn.find((candidate) => candidate.matches(registry));
      expect(provider, registry).toMatchObject({ type, name: 'public' });
      const connection = await provider!.connection(registry);
      expect(connection.credentials, registry).toBeUndefined();
      expect(connection.rateLimit, registry).toEqual({ ratePerSecond: 5, burst: 10 });
    }
  });

  it('leave private ECR and Azure registries to a configured provider or the generic fallback', async () => {
    const { builtIn } = await loadRegistryProviders([], context);
    expect(builtIn.some((provider) => provider.type === 'acr')).toBe(false);
    for (const registry of ['123456789012.dkr.ecr.us-east-1.amazonaws.com', 'myregistry.azurecr.io']) {
      expect(builtIn.find((provider) => provider.matches(registry))).toBeUndefined();
    }
  });

  it('build configured gitlab, gcr, ecr and acr providers from DD_REGISTRY_* variables', async () => {
    const { configured } = await loadRegistryProviders(
      [
        ['DD_REGISTRY_GITLAB_CORP_URL', 'https://registry.corp.example'],
        ['DD_REGISTRY_GITLAB_CORP_LOGIN', 'me'],
        ['DD_REGISTRY_GITLAB_CORP_TOKEN', 'glpat-EXAMPLE'],
        ['DD_REGISTRY_GCR_PROD_TOKEN', 'ya29.EXAMPLE'],
        ['DD_REGISTRY_ECR_PROD_ACCESSKEYID', 'AKIAIOSFODNN7EXAMPLE'],
        ['DD_REGISTRY_ECR_PROD_SECRETACCESSKEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
        ['DD_REGISTRY_ECR_PROD_REGION', 'eu-central-1'],
        ['DD_REGISTRY_ACR_PROD_CLIENTID', '00000000-1111-2222-3333-444444444444'],
        ['DD_REGISTRY_ACR_PROD_CLIENTSECRET', 'Q~EXAMPLE'],
      ],
      context,
    );
    expect(configured.map((provider) => `${provider.type}.${provider.name}`)).toEqual([
      'gitlab.corp',
      'gcr.prod',
      'ecr.prod',
      'acr.prod',
    ]);
    const masked = JSON.stringify(configured.map((provider) => provider.maskedConfiguration()));
    for (const secret of ['glpat-EXAMPLE', 'ya29.EXAMPLE', 'AKIAIOSFODNN7EXAMPLE', 'bPxRfiCYEXAMPLEKEY', 'Q~EXAMPLE'])
      expect(masked).not.toContain(secret);
  });
});
