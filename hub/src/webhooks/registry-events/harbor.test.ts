import { describe, expect, it } from 'vitest';
import { harborFormat } from './harbor';
import { parseRegistryEvent } from './index';

/** Harbor 2.x, payload format Default: a PUSH_ARTIFACT event. */
const HARBOR_DEFAULT = {
  type: 'PUSH_ARTIFACT',
  occur_at: 1709287200,
  operator: 'robot$ci',
  event_data: {
    resources: [
      {
        digest: 'sha256:954b378c375d852eb3c63ab88978f640b4348b01c1b3456a024a81536dafbbf4',
        tag: 'v1.4.2',
        resource_url: 'harbor.example.com/platform/api:v1.4.2',
      },
    ],
    repository: {
      date_created: 1709280000,
      name: 'api',
      namespace: 'platform',
      repo_full_name: 'platform/api',
      repo_type: 'private',
    },
  },
};

/** The same push in Harbor's CloudEvents payload format. */
const HARBOR_CLOUDEVENTS = {
  specversion: '1.0',
  requestid: '2d2e6d5c-2e5a-4f1e-9f26-6a0f0c5a1b2c',
  id: '4b2e9a3c-0d7f-4d8e-a2a9-1c6f1d1e2f3a',
  source: '/projects/3/webhook/policies/7',
  type: 'harbor.artifact.pushed',
  datacontenttype: 'application/json',
  time: '2026-03-01T10:00:00Z',
  data: HARBOR_DEFAULT.event_data,
  operator: 'robot$ci',
};

const EXPECTED = [
  {
    registry: 'harbor.example.com',
    repository: 'platform/api',
    tag: 'v1.4.2',
    digest: 'sha256:954b378c375d852eb3c63ab88978f640b4348b01c1b3456a024a81536dafbbf4',
  },
];

describe('Harbor webhooks', () => {
  it('reads a PUSH_ARTIFACT event: the host from resource_url', () => {
    expect(parseRegistryEvent(HARBOR_DEFAULT)).toEqual({ format: 'harbor', images: EXPECTED, ignored: 0 });
  });

  it('reads the CloudEvents format alike', () => {
    expect(parseRegistryEvent(HARBOR_CLOUDEVENTS)).toEqual({ format: 'harbor', images: EXPECTED, ignored: 0 });
  });

  it('ignores pulls, deletes and scan results', () => {
    for (const type of ['PULL_ARTIFACT', 'DELETE_ARTIFACT', 'SCANNING_COMPLETED', 'harbor.artifact.pulled']) {
      expect(harborFormat.parse({ ...HARBOR_DEFAULT, type })).toEqual({ images: [], ignored: 1 });
    }
  });

  it('matches the repository alone when a resource has no URL', () => {
    const bare = { ...HARBOR_DEFAULT, event_data: { ...HARBOR_DEFAULT.event_data, resources: [{ tag: 'v2' }] } };
    expect(harborFormat.parse(bare).images).toEqual([{ registry: undefined, repository: 'platform/api', tag: 'v2' }]);
  });
});
