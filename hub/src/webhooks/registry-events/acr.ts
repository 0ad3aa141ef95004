import * as v from 'valibot';
import { DistributionEventSchema, pushedImageOfEvent } from './distribution';
import type { RegistryEventFormat } from './pushed-image';

/**
 * Azure Container Registry webhooks: one distribution-style event per request, not wrapped in an
 * envelope (`{id, timestamp, action: 'push', target: {repository, tag, digest, mediaType},
 * request: {host: 'myregistry.azurecr.io'}}`). `chart_push`, `delete`, `quarantine` and the
 * other actions are not image pushes.
 */
const AcrEventSchema = v.looseObject({
  ...DistributionEventSchema.entries,
  id: v.optional(v.string()),
  timestamp: v.optional(v.string()),
});

export const acrFormat: RegistryEventFormat = {
  name: 'acr',
  matches: (payload) => v.is(AcrEventSchema, payload),
  parse(payload) {
    const image = pushedImageOfEvent(v.parse(AcrEventSchema, payload));
    return image ? { images: [image], ignored: 0 } : { images: [], ignored: 1 };
  },
};
