/**
 * scripts/release-dry-run.sh, the release workflow's build steps, run for real on a test dockerd:
 * the production build, both images from the Dockerfile with the release's build arguments (the
 * Node base image made offline, as test/images does), the Worker bundle as the release attaches it,
 * the SBOM of each image by the hub's own generator and the changelog's notes for the version.
 * One run for the file (about a minute here: most of it the bundle, the base image and two builds).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changelogSection } from '../../scripts/changelog.mjs';
import { makeNodeBaseImage } from '../support/docker/node-base-image';
import { DOCKER_ROOT, startDockerd, type TestDockerd } from '../support/docker/start-dockerd';
import { REPO_ROOT } from '../support/hub-process';
import { type CommandResult, runCommand } from '../support/run-command';
import { cycloneDxErrors } from '../support/sbom/document-validators';

const SCRIPT = join(REPO_ROOT, 'scripts', 'release-dry-run.sh');
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const SOURCE_URL = 'https://git.example.test/a-fork/dockwatch';
const REVISION = 'dry-run-revision';
const PREFIX = 'localhost/dockwatch-dry-run';

describe('scripts/release-dry-run.sh', () => {
  let dockerd: TestDockerd;
  let work: string;
  let baseImage: string;
  let run: CommandResult;

  /** The script as a developer runs it, its docker CLI on the test daemon (never the host's). */
  const dryRun = (out: string, env: Record<string, string> = {}) =>
    runCommand(SCRIPT, [out], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PATH: `${join(DOCKER_ROOT, 'usr/bin')}:${process.env.PATH ?? ''}`,
        DOCKER_HOST: `unix://${dockerd.socketPath}`,
        DOCKER_CONFIG: join(work, 'docker-config'),
        NODE_IMAGE: baseImage,
        SOURCE_URL,
        REVISION,
        ...env,
      },
    });
  const output = (name: string) => readFileSync(join(work, 'out', name), 'utf8');
  const json = (name: string) => JSON.parse(output(name)) as Record<string, unknown>;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'dockwatch-release-dry-run-'));
    dockerd = await startDockerd();
    baseImage = await makeNodeBaseImage(dockerd);
    run = await dryRun(join(work, 'out'));
    if (run.code !== 0) throw new Error(`release-dry-run.sh exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  }, 300_000);

  afterAll(async () => {
    await dockerd?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('runs the five steps and says what it wrote', () => {
    for (const step of ['1/5', '2/5', '3/5', '4/5', '5/5']) expect(run.stdout).toContain(`== ${step}`);
    expect(json('summary.json')).toEqual({
      version: VERSION,
      tag: `v${VERSION}`,
      revision: REVISION,
      notes: 'release-notes.md',
      workers: `dockwatch-workers-${VERSION}.tar.gz`,
      images: {
        hub: { image: `${PREFIX}/hub:${VERSION}`, labels: 'hub.labels.json', sbom: 'hub.cdx.json' },
        agent: { image: `${PREFIX}/agent:${VERSION}`, labels: 'agent.labels.json', sbom: 'agent.cdx.json' },
      },
    });
  });

  it("writes the changelog's section for the version as the release notes", () => {
    const notes = output('release-notes.md');
    expect(notes.trim()).toBe(changelogSection(readFileSync(join(REPO_ROOT, 'CHANGELOG.md'), 'utf8'), VERSION));
    expect(notes).toMatch(/^### Added$/m);
  });

  it('labels both images with the source URL, revision and version it was given', async () => {
    for (const target of ['hub', 'agent']) {
      expect(json(`${target}.labels.json`)).toMatchObject({
        'org.opencontainers.image.source': SOURCE_URL,
        'org.opencontainers.image.revision': REVISION,
        'org.opencontainers.image.version': VERSION,
        'org.opencontainers.image.title': `dockwatch ${target === 'hub' ? 'hub' : 'edge agent'}`,
      });
      const image = await dockerd.docker.getImage(`${PREFIX}/${target}:${VERSION}`).inspect();
      expect(image.Config.User).toBe('1000:1000');
    }
  });

  it("writes each image's SBOM as a valid CycloneDX document naming that image", async () => {
    for (const target of ['hub', 'agent']) {
      const document = json(`${target}.cdx.json`);
      expect(cycloneDxErrors(document)).toEqual([]);
      const id = (await dockerd.docker.getImage(`${PREFIX}/${target}:${VERSION}`).inspect()).Id;
      expect(document['metadata']).toMatchObject({
        component: { type: 'container', name: `${PREFIX}/${target}:${VERSION}` },
        tools: { components: [expect.objectContaining({ name: 'dockwatch', version: VERSION })] },
      });
      expect(JSON.stringify(document)).toContain(id);
    }
  });

  it('packs the Worker bundle with the wrangler.toml that names it', async () => {
    const listed = await runCommand('tar', ['-tzf', join(work, 'out', `dockwatch-workers-${VERSION}.tar.gz`)]);
    expect(listed.stdout.split('\n').filter(Boolean).sort()).toEqual([
      'dist/workers/index.js',
      'dist/workers/index.js.map',
      'wrangler.toml',
    ]);
    expect(readFileSync(join(work, 'out', 'workers', 'wrangler.toml'), 'utf8')).toMatch(
      /^main = "dist\/workers\/index\.js"$/m,
    );
  });

  it('refuses a tag that does not name the version before building anything', async () => {
    const refused = await dryRun(join(work, 'refused'), { RELEASE_TAG: 'v99.0.0' });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`tag v99.0.0 but package.json says ${VERSION}`);
    expect(refused.stdout).not.toContain('== 2/5');
  });
});
