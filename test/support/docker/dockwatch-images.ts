/**
 * The project's own container images, built on a test dockerd the way a release builds them:
 * `npm run build` (scripts/build.mjs: the work tree's dist/, made by the test beds' global setup or
 * here when stale, and copied into the context), then `docker build --target hub|agent`
 * of the repository's Dockerfile with the classic builder, the base image made offline
 * (node-base-image.ts) and passed as NODE_IMAGE. The context is a temp dir holding what
 * .dockerignore lets in: the Dockerfile is built exactly as committed.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAll, DIST } from '../../../scripts/build.mjs';
import { staleReason } from '../../../scripts/build-manifest.mjs';
import { makeNodeBaseImage } from './node-base-image';
import type { TestDockerd } from './start-dockerd';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const HUB_IMAGE = 'localhost/dockwatch/hub:test';
export const AGENT_IMAGE = 'localhost/dockwatch/agent:test';
export const IMAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;
export const IMAGE_REVISION = 'test-revision';

export interface DockwatchImages {
  hub: string;
  agent: string;
  base: string;
  /** The build context, with dist/ as scripts/build.mjs wrote it (removed by cleanup()). */
  context: string;
  /** Wall time of each step, for the report. */
  timings: Record<'dist' | 'base' | 'hub' | 'agent', number>;
  cleanup(): void;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, Math.round(performance.now() - started)];
}

/**
 * The work tree's production build into `outdir`, built first if a source changed since (as
 * `npm start` does). The same build as one into the context, without building it again for each
 * image suite (2.8 CPU-seconds each); the Worker bundle beside it is left out.
 */
export async function copyBuild(outdir: string): Promise<void> {
  if (staleReason(DIST, ROOT) !== undefined) await buildAll();
  cpSync(DIST, outdir, { recursive: true, filter: (source) => source !== join(DIST, 'workers') });
}

export async function buildDockwatchImages(dockerd: TestDockerd): Promise<DockwatchImages> {
  const context = mkdtempSync(join(tmpdir(), 'dockwatch-image-context-'));
  try {
    cpSync(join(ROOT, 'Dockerfile'), join(context, 'Dockerfile'));
    cpSync(join(ROOT, '.dockerignore'), join(context, '.dockerignore'));
    cpSync(join(ROOT, 'LICENSE'), join(context, 'LICENSE'));
    const [[, dist], [base, baseMs]] = await Promise.all([
      timed(() => copyBuild(join(context, 'dist'))),
      timed(() => makeNodeBaseImage(dockerd)),
    ]);
    const build = async (target: 'hub' | 'agent', tag: string) => {
      const args = ['build', '--target', target, '--build-arg', `NODE_IMAGE=${base}`];
      args.push('--build-arg', `VERSION=${IMAGE_VERSION}`, '--build-arg', `REVISION=${IMAGE_REVISION}`);
      const result = await dockerd.cli([...args, '-t', tag, context]);
      if (result.code !== 0)
        throw new Error(`docker build --target ${target} failed:\n${result.stdout}\n${result.stderr}`);
      return tag;
    };
    // One after the other: the agent reuses the runtime stage the hub's build cached.
    const [hub, hubMs] = await timed(() => build('hub', HUB_IMAGE));
    const [agent, agentMs] = await timed(() => build('agent', AGENT_IMAGE));
    return {
      hub,
      agent,
      base,
      context,
      timings: { dist, base: baseMs, hub: hubMs, agent: agentMs },
      cleanup: () => rmSync(context, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(context, { recursive: true, force: true });
    throw error;
  }
}
