import { expect, it } from 'vitest';
import { describeRuntimeMatrix } from '../../support/hub-harness';

describeRuntimeMatrix(
  'registries',
  (client) => {
    it('lists configured providers first, then the built-in public ones and the generic fallback, without secrets', async () => {
      const response = await client().request('/api/v1/registries');
      expect(response.status).toBe(200);
      const body = await response.json();
      const ids = body.data.map((registry: { id: string }) => registry.id);
      expect(ids.slice(0, 2).sort()).toEqual(['custom.mirror', 'hub.private']);
      expect(ids).toEqual(
        expect.arrayContaining([
          'hub.public',
          'ghcr.public',
          'lscr.public',
          'quay.public',
          'gitlab.public',
          'gcr.public',
          'ecr.public',
        ]),
      );
      expect(ids.at(-1)).toBe('generic.anonymous');
      expect(body.total).toBe(ids.length);
      const mirror = body.data.find((registry: { id: string }) => registry.id === 'custom.mirror');
      expect(mirror).toMatchObject({
        type: 'custom',
        configured: true,
        configuration: { url: 'https://mirror.example.com', login: 'bot', password: '***' },
      });
      const text = JSON.stringify(body);
      expect(text).not.toContain('mirror-s3cret');
      expect(text).not.toContain('hub-t0ken');
    });

    it('counts registry requests by host in /metrics', async () => {
      const text = await (await client().request('/metrics')).text();
      expect(text).toContain('# TYPE dd_registry_requests_total counter');
    });
  },
  {
    DD_REGISTRY_CUSTOM_MIRROR_URL: 'https://mirror.example.com',
    DD_REGISTRY_CUSTOM_MIRROR_LOGIN: 'bot',
    DD_REGISTRY_CUSTOM_MIRROR_PASSWORD: 'mirror-s3cret',
    DD_REGISTRY_HUB_PRIVATE_LOGIN: 'me',
    DD_REGISTRY_HUB_PRIVATE_TOKEN: 'hub-t0ken',
  },
);
