import * as v from 'valibot';
import { DOCKER_HUB } from '../../../../shared/registry/image-reference';
import { pushedImage, type RegistryEventFormat } from './pushed-image';

/**
 * Docker Hub repository webhooks: a push is the only event, so the payload has no action field
 * (`{callback_url, push_data: {tag, pushed_at, pusher}, repository: {repo_name: 'owner/app', ...}}`).
 */
const DockerHubPayloadSchema = v.looseObject({
  push_data: v.looseObject({ tag: v.optional(v.string()) }),
  repository: v.looseObject({
    repo_name: v.optional(v.string()),
    namespace: v.optional(v.string()),
    name: v.optional(v.string()),
  }),
});

export const dockerHubFormat: RegistryEventFormat = {
  name: 'docker-hub',
  matches: (payload) => v.is(DockerHubPayloadSchema, payload),
  parse(payload) {
    const { push_data, repository } = v.parse(DockerHubPayloadSchema, payload);
    const name =
      repository.repo_name ??
      (repository.namespace && repository.name ? `${repository.namespace}/${repository.name}` : undefined);
    const image = pushedImage(DOCKER_HUB, name, push_data.tag);
    return image ? { images: [image], ignored: 0 } : { images: [], ignored: 1 };
  },
};
