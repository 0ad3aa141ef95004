import * as v from 'valibot';
import { type Container, ContainerSchema } from '../../../shared/schemas/container';
import { UpdateKindSchema } from '../../../shared/update/update-kind';

/**
 * The container a manual trigger run (http-interface §4.7) and a template preview (http-interface §4.9) render: a
 * realistic record with a minor update, so every default template has something to show.
 */
export function simulatedContainer(now: number, overrides: Partial<Container> = {}): Container {
  const at = new Date(now).toISOString();
  return {
    id: 'simulated-container',
    name: 'example',
    watcher: 'local',
    status: 'running',
    displayName: 'example',
    watched: true,
    webhookEnabled: true,
    labels: {},
    env: [],
    image: {
      id: 'sha256:0000000000000000000000000000000000000000000000000000000000000000',
      registry: { url: 'docker.io' },
      name: 'library/nginx',
      tag: { value: '1.27.0', semver: true },
      digest: { watch: false },
      architecture: 'amd64',
      os: 'linux',
    },
    result: { tag: '1.28.0', link: 'https://github.com/nginx/nginx/releases/tag/release-1.28.0' },
    updateAvailable: true,
    updateKind: { kind: 'tag', localValue: '1.27.0', remoteValue: '1.28.0', semverDiff: 'minor' },
    updatePolicy: {},
    createdAt: at,
    firstSeenAt: at,
    checkedAt: at,
    ...overrides,
  };
}

const Short = v.pipe(v.string(), v.maxLength(256));

/**
 * The body of `POST /api/v1/triggers/{type}/{name}`: a container object (`id`, `name`, `watcher`,
 * `updateKind`, …). Every field is optional; what is given replaces the simulated value.
 */
export const SimulatedContainerBodySchema = v.optional(
  v.looseObject({
    id: v.optional(Short),
    name: v.optional(Short),
    displayName: v.optional(Short),
    watcher: v.optional(Short),
    agent: v.optional(Short),
    group: v.optional(Short),
    updateKind: v.optional(UpdateKindSchema),
    updateAvailable: v.optional(v.boolean()),
    image: v.optional(
      v.looseObject({
        registry: v.optional(v.object({ url: Short })),
        name: v.optional(Short),
        tag: v.optional(v.object({ value: Short, semver: v.optional(v.boolean()) })),
      }),
    ),
    result: v.optional(v.looseObject({ tag: Short, link: v.optional(v.pipe(v.string(), v.maxLength(2048))) })),
    labels: v.optional(v.record(v.string(), v.pipe(v.string(), v.maxLength(1024)))),
  }),
);
export type SimulatedContainerBody = v.InferOutput<typeof SimulatedContainerBodySchema>;

/** The simulated container with the body's fields; only known fields are taken, checked as a whole. */
export function containerFromBody(body: SimulatedContainerBody, now: number): Container | string {
  const base = simulatedContainer(now);
  if (!body) return base;
  const image = body.image
    ? {
        ...base.image,
        ...(body.image.registry && { registry: { url: body.image.registry.url } }),
        ...(body.image.name !== undefined && { name: body.image.name }),
        ...(body.image.tag && { tag: { value: body.image.tag.value, semver: body.image.tag.semver ?? false } }),
      }
    : base.image;
  const candidate: Container = {
    ...base,
    ...(body.id !== undefined && { id: body.id }),
    ...(body.name !== undefined && { name: body.name, displayName: body.displayName ?? body.name }),
    ...(body.displayName !== undefined && { displayName: body.displayName }),
    ...(body.watcher !== undefined && { watcher: body.watcher }),
    ...(body.agent !== undefined && { agent: body.agent }),
    ...(body.group !== undefined && { group: body.group }),
    ...(body.updateKind && { updateKind: body.updateKind, updateAvailable: body.updateKind.kind !== 'unknown' }),
    ...(body.updateAvailable !== undefined && { updateAvailable: body.updateAvailable }),
    ...(body.result && {
      result: { tag: body.result.tag, ...(body.result.link !== undefined && { link: body.result.link }) },
    }),
    ...(body.labels && { labels: body.labels }),
    image,
  };
  const checked = v.safeParse(ContainerSchema, candidate);
  return checked.success ? checked.output : (checked.issues[0]?.message ?? 'invalid container');
}
