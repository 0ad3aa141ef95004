import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { gzipSync } from 'node:zlib';
import type { TestRegistry } from './start-registry';

/** What the helpers need of a registry: any started registry fits, and so does a hand-made one. */
export type PushTarget = Pick<TestRegistry, 'url' | 'variant' | 'users' | 'caFile'>;

export interface Platform {
  os: string;
  architecture: string;
  variant?: string;
}

export interface PushImageOptions {
  repository: string;
  tags: string[];
  /** Defaults to one linux/amd64 image; more than one makes an index (OCI) or manifest list (Docker). */
  platforms?: Platform[];
  /** ISO date written as `created` into every config blob. */
  created?: string;
  format?: 'oci' | 'docker';
  /** Adds buildx-style in-toto attestation manifests (platform unknown/unknown) to the index. */
  attestations?: boolean;
  /** Puts the platform manifests into an index that the tagged index points to. */
  nestedIndex?: boolean;
  /** Any change gives new layers, configs and so new digests: a "newer build" of the same tag. */
  layerSeed?: string;
}

export interface PushedImage {
  /** The digest the tags point to (a manifest, or the top index). */
  digest: string;
  mediaType: string;
  /** Keyed `os/arch[/variant]`. */
  platformDigests: Record<string, string>;
  configDigests: Record<string, string>;
  /** Attestation manifest digest per platform key; empty without `attestations`. */
  attestationDigests: Record<string, string>;
}

export const MEDIA_TYPES = {
  oci: {
    index: 'application/vnd.oci.image.index.v1+json',
    manifest: 'application/vnd.oci.image.manifest.v1+json',
    config: 'application/vnd.oci.image.config.v1+json',
    layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
  },
  docker: {
    index: 'application/vnd.docker.distribution.manifest.list.v2+json',
    manifest: 'application/vnd.docker.distribution.manifest.v2+json',
    config: 'application/vnd.docker.container.image.v1+json',
    layer: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
  },
} as const;

/** The Accept list a client must send: without the OCI types an OCI manifest answers 404. */
export const MANIFEST_ACCEPT = [
  MEDIA_TYPES.oci.index,
  MEDIA_TYPES.docker.index,
  MEDIA_TYPES.docker.manifest,
  MEDIA_TYPES.oci.manifest,
].join(', ');

interface Blob {
  digest: string;
  bytes: Buffer;
}

interface Manifest extends Blob {
  mediaType: string;
}

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: Platform;
  annotations?: Record<string, string>;
}

export function pushImage(registry: PushTarget, options: PushImageOptions): Promise<PushedImage> {
  return withSession(registry, options.repository, 'pull,push', async (session) => {
    const { image, top } = await pushContent(session, options);
    await tagAll(session, top, options.tags, 1);
    return image;
  });
}

/**
 * One single-platform image under many tags: the blobs and manifest go up once, then only tag PUTs
 * follow, a few at a time, so a repository with thousands of tags takes seconds.
 */
export function pushManyTags(
  registry: PushTarget,
  repository: string,
  tags: string[],
  concurrency = 16,
): Promise<PushedImage> {
  return withSession(registry, repository, 'pull,push', async (session) => {
    const { image, top } = await pushContent(session, { repository, tags: [], layerSeed: 'many-tags' });
    await tagAll(session, top, tags, concurrency);
    return image;
  });
}

export interface FilesystemImageOptions {
  repository: string;
  tags: string[];
  /** Uncompressed tars, lowest first: real root-filesystem layers a daemon unpacks. */
  layers: Buffer[];
  /** The image config's `config` (Cmd, Healthcheck, Labels…), as `docker inspect` shows it. */
  config: Record<string, unknown>;
  /** ISO date of the config; now by default, so two pushes of the same files are two builds. */
  created?: string;
}

/**
 * A runnable Docker v2 image of real layers for this machine's platform, pushed without a daemon.
 * A layer shared with earlier images (the same tar Buffer) is gzipped once per process and
 * uploaded once per repository. Answers the manifest digest.
 */
export function pushFilesystemImage(registry: PushTarget, options: FilesystemImageOptions): Promise<string> {
  return withSession(registry, options.repository, 'pull,push', async (session) => {
    const created = options.created ?? new Date().toISOString();
    const layers = options.layers.map(gzippedLayer);
    const built = assemble(MEDIA_TYPES.docker, layers, {
      created,
      architecture: HOST_ARCHITECTURE[process.arch] ?? process.arch,
      os: 'linux',
      config: options.config,
      rootfs: { type: 'layers', diff_ids: layers.map((layer) => layer.diffId) },
      history: layers.map(() => ({ created, created_by: 'dockwatch test bed: push-image' })),
    });
    await pushBuilt(session, built);
    await tagAll(session, built.manifest, options.tags, 1);
    return built.manifest.digest;
  });
}

/** Node's process.arch as the OCI platform names it. */
const HOST_ARCHITECTURE: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386' };

const gzippedLayers = new WeakMap<Buffer, Blob & { diffId: string }>();

function gzippedLayer(tar: Buffer): Blob & { diffId: string } {
  let layer = gzippedLayers.get(tar);
  if (!layer) {
    layer = { ...blob(gzipSync(tar)), diffId: sha256(tar) };
    gzippedLayers.set(tar, layer);
  }
  return layer;
}

/** By digest only (a tag answers 400 DIGEST_INVALID); the registry drops every tag of that manifest too. */
export function deleteManifest(registry: PushTarget, repository: string, digest: string): Promise<void> {
  // Distribution 2.8 wants the `delete` action for DELETE; pull,push is not enough.
  return withSession(registry, repository, 'pull,push,delete', async (session) => {
    await send(session, 'DELETE', `/v2/${repository}/manifests/${digest}`, { expect: 202 });
  });
}

async function pushContent(
  session: Session,
  options: PushImageOptions,
): Promise<{ image: PushedImage; top: Manifest }> {
  const types = MEDIA_TYPES[options.format ?? 'oci'];
  const platforms = options.platforms ?? [{ os: 'linux', architecture: 'amd64' }];
  const created = options.created ?? new Date().toISOString();
  const seed = options.layerSeed ?? 'default';
  const image: PushedImage = {
    digest: '',
    mediaType: '',
    platformDigests: {},
    configDigests: {},
    attestationDigests: {},
  };
  const manifests: Manifest[] = [];
  const children: Descriptor[] = [];
  for (const platform of platforms) {
    const key = platformKey(platform);
    const built = await pushBuilt(session, buildImage(types, platform, created, `${seed}\n${key}`));
    image.platformDigests[key] = built.manifest.digest;
    image.configDigests[key] = built.config.digest;
    manifests.push(built.manifest);
    children.push({ ...describe(built.manifest), platform });
  }
  for (const child of options.attestations ? [...children] : []) {
    const built = await pushBuilt(session, buildAttestation(child, seed));
    image.attestationDigests[platformKey(child.platform!)] = built.manifest.digest;
    // The shape buildx writes: unknown/unknown platform, and annotations naming the image it attests.
    children.push({
      ...describe(built.manifest),
      platform: { os: 'unknown', architecture: 'unknown' },
      annotations: { 'vnd.docker.reference.digest': child.digest, 'vnd.docker.reference.type': 'attestation-manifest' },
    });
  }
  let top = manifests[0]!;
  if (children.length > 1 || options.nestedIndex) {
    top = toManifest(types.index, { schemaVersion: 2, mediaType: types.index, manifests: children });
    if (options.nestedIndex) {
      await putManifest(session, top.digest, top);
      top = toManifest(types.index, { schemaVersion: 2, mediaType: types.index, manifests: [describe(top)] });
      await putManifest(session, top.digest, top);
    }
  }
  image.digest = top.digest;
  image.mediaType = top.mediaType;
  return { image, top };
}

// --- content -----------------------------------------------------------------------------------

type MediaTypes = (typeof MEDIA_TYPES)[keyof typeof MEDIA_TYPES];

/** Config, layers and the manifest naming them: what images and attestations are both made of. */
interface Built {
  layers: Blob[];
  config: Blob;
  manifest: Manifest;
}

/** The layer is a real gzipped tar, so a daemon pulling from the test bed can unpack it. */
function buildImage(types: MediaTypes, platform: Platform, created: string, content: string): Built {
  const tar = tarWithOneFile('dockwatch-build.txt', `${content}\n`);
  return assemble(types, [blob(gzipSync(tar))], {
    created,
    architecture: platform.architecture,
    os: platform.os,
    ...(platform.variant ? { variant: platform.variant } : {}),
    config: { Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], Cmd: ['/bin/sh'] },
    rootfs: { type: 'layers', diff_ids: [sha256(tar)] },
    history: [{ created, created_by: 'dockwatch test bed: push-image' }],
  });
}

/** A provenance statement about one platform manifest, always in OCI media types as buildx writes it. */
function buildAttestation(subject: Descriptor, seed: string): Built {
  const predicateType = 'https://slsa.dev/provenance/v0.2';
  const statement = blob(
    JSON.stringify({
      _type: 'https://in-toto.io/Statement/v0.1',
      predicateType,
      subject: [{ name: `pkg:docker/test@${seed}`, digest: { sha256: subject.digest.slice('sha256:'.length) } }],
      predicate: { builder: { id: 'dockwatch-test-bed' } },
    }),
  );
  const config = {
    architecture: 'unknown',
    os: 'unknown',
    config: {},
    rootfs: { type: 'layers', diff_ids: [statement.digest] },
  };
  const layer = {
    mediaType: 'application/vnd.in-toto+json',
    annotations: { 'in-toto.io/predicate-type': predicateType },
  };
  return assemble(MEDIA_TYPES.oci, [statement], config, layer);
}

function assemble(types: MediaTypes, layers: Blob[], configBody: object, layerFields: Partial<Descriptor> = {}): Built {
  const config = blob(JSON.stringify(configBody));
  const manifest = toManifest(types.manifest, {
    schemaVersion: 2,
    mediaType: types.manifest,
    config: { mediaType: types.config, digest: config.digest, size: config.bytes.length },
    layers: layers.map((layer) => ({
      mediaType: types.layer,
      digest: layer.digest,
      size: layer.bytes.length,
      ...layerFields,
    })),
  });
  return { layers, config, manifest };
}

/** A ustar archive: one 512-byte header, the content padded to 512, and two zero blocks. */
function tarWithOneFile(name: string, content: string): Buffer {
  const data = Buffer.from(content);
  const header = Buffer.alloc(512);
  const field = (value: string, offset: number) => header.write(value, offset, 'ascii');
  field(name, 0);
  field('0000644\0', 100);
  field('0000000\0', 108);
  field('0000000\0', 116);
  field(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
  field('00000000000\0', 136);
  field('        ', 148);
  field('0', 156);
  field('ustar\0', 257);
  field('00', 263);
  let checksum = 0;
  for (const byte of header) checksum += byte;
  field(`${checksum.toString(8).padStart(6, '0')}\0 `, 148);
  const padding = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([header, data, padding, Buffer.alloc(1024)]);
}

function toManifest(mediaType: string, body: unknown): Manifest {
  return { mediaType, ...blob(JSON.stringify(body)) };
}

function describe(manifest: Manifest): Descriptor {
  return { mediaType: manifest.mediaType, digest: manifest.digest, size: manifest.bytes.length };
}

function blob(content: string | Buffer): Blob {
  const bytes = typeof content === 'string' ? Buffer.from(content) : content;
  return { bytes, digest: sha256(bytes) };
}

function sha256(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

export function platformKey(platform: Platform): string {
  return [platform.os, platform.architecture, ...(platform.variant ? [platform.variant] : [])].join('/');
}

// --- registry HTTP API -------------------------------------------------------------------------

interface Session {
  registry: PushTarget;
  repository: string;
  authorization: string | undefined;
  agent: HttpAgent;
}

interface SendInit {
  headers?: Record<string, string>;
  body?: Buffer;
  /** The status that means success; any other one throws with the registry's error body. */
  expect?: number;
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

async function withSession<T>(
  registry: PushTarget,
  repository: string,
  actions: string,
  work: (session: Session) => Promise<T>,
): Promise<T> {
  const ca = registry.caFile ? readFileSync(registry.caFile, 'utf8') : undefined;
  // Keep-alive matters for thousands of tag PUTs; the agent is destroyed after each helper call.
  const agent = registry.url.startsWith('https:')
    ? new HttpsAgent({ keepAlive: true, ...(ca ? { ca } : {}) })
    : new HttpAgent({ keepAlive: true });
  const session: Session = { registry, repository, authorization: undefined, agent };
  try {
    session.authorization = await logIn(session, actions);
    return await work(session);
  } finally {
    agent.destroy();
  }
}

/**
 * Logs in the way a client would: Basic credentials for `basic`; for `token`, the realm and service
 * from the Bearer challenge on `/v2/`, then a token for this repository as the first test user.
 */
async function logIn(session: Session, actions: string): Promise<string | undefined> {
  const { registry, repository } = session;
  const [user, password] = Object.entries(registry.users)[0] ?? [];
  const basic = user === undefined ? undefined : `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  if (registry.variant !== 'token') return registry.variant === 'basic' ? basic : undefined;

  const ping = await send(session, 'GET', '/v2/');
  const challenge = String(ping.headers['www-authenticate'] ?? '');
  const realm = /realm="([^"]+)"/.exec(challenge)?.[1];
  const service = /service="([^"]+)"/.exec(challenge)?.[1];
  if (ping.status !== 401 || !realm || !service) {
    throw new Error(
      `push-image: expected a Bearer challenge from ${registry.url}/v2/, got ${ping.status} ${challenge}`,
    );
  }
  const tokenUrl = new URL(realm);
  tokenUrl.searchParams.set('service', service);
  tokenUrl.searchParams.set('scope', `repository:${repository}:${actions}`);
  const reply = await send(session, 'GET', tokenUrl.href, {
    headers: basic ? { Authorization: basic } : {},
    expect: 200,
  });
  const body = JSON.parse(reply.body.toString('utf8')) as { token?: string; access_token?: string };
  return `Bearer ${body.token ?? body.access_token}`;
}

async function pushBlobs(session: Session, blobs: Blob[]): Promise<void> {
  const base = `/v2/${session.repository}/blobs`;
  for (const { digest, bytes } of blobs) {
    if ((await send(session, 'HEAD', `${base}/${digest}`)).status === 200) continue;
    const started = await send(session, 'POST', `${base}/uploads/`, { expect: 202 });
    const location = String(started.headers.location ?? '');
    // Monolithic upload: the whole blob in the PUT that closes the session the POST opened.
    const target = `${location}${location.includes('?') ? '&' : '?'}digest=${encodeURIComponent(digest)}`;
    await send(session, 'PUT', target, {
      headers: { 'Content-Type': 'application/octet-stream' },
      body: bytes,
      expect: 201,
    });
  }
}

async function pushBuilt(session: Session, built: Built): Promise<Built> {
  await pushBlobs(session, [...built.layers, built.config]);
  await putManifest(session, built.manifest.digest, built.manifest);
  return built;
}

async function putManifest(session: Session, reference: string, manifest: Manifest): Promise<void> {
  const path = `/v2/${session.repository}/manifests/${reference}`;
  const reply = await send(session, 'PUT', path, {
    headers: { 'Content-Type': manifest.mediaType },
    body: manifest.bytes,
    expect: 201,
  });
  const digest = reply.headers['docker-content-digest'];
  if (digest !== manifest.digest)
    throw new Error(`push-image: PUT ${path} stored ${digest}, expected ${manifest.digest}`);
}

async function tagAll(session: Session, manifest: Manifest, tags: string[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tags.length) await putManifest(session, tags[next++]!, manifest);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tags.length) }, worker));
}

/** node:http rather than fetch: a CA per agent without depending on undici, which the project does not declare. */
function send(session: Session, method: string, target: string, init: SendInit = {}): Promise<Reply> {
  const url = new URL(target, session.registry.url);
  const sameOrigin = url.origin === new URL(session.registry.url).origin;
  const headers: Record<string, string> = { ...init.headers };
  if (sameOrigin && session.authorization && !headers['Authorization'])
    headers['Authorization'] = session.authorization;
  if (init.body) headers['Content-Length'] = String(init.body.length);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Reply>((resolve, reject) => {
    const req = request(url, { method, headers, agent: sameOrigin ? session.agent : false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.once('error', reject);
    });
    req.once('error', (error) =>
      reject(new Error(`push-image: ${method} ${url.href} failed: ${error.message}`, { cause: error })),
    );
    req.end(init.body);
  }).then((reply) => {
    if (init.expect === undefined || reply.status === init.expect) return reply;
    throw new Error(
      `push-image: ${method} ${url.href} answered ${reply.status}: ${reply.body.toString('utf8').slice(0, 500)}`,
    );
  });
}
