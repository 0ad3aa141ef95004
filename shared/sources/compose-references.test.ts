// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Dockerfile and compose variables, written as the files have them
import { describe, expect, it } from 'vitest';
import { parseComposeFile, sourceFileKind } from './compose-references';
import { parseImageList } from './image-list';

describe('parseComposeFile', () => {
  it("gives each service's image with its line and its dd.* labels (map or list); build-only services have none", () => {
    const text = `services:
  web:
    image: nginx:1.25.3
    labels:
      dd.tag.include: ^\\d+\\.\\d+\\.\\d+$
      com.example.other: kept-out
  worker:
    build: .
  cache:
    labels: ["dd.watch=false"]
    image: "redis:\${REDIS_TAG:-7.2}"
`;
    const parsed = parseComposeFile(text, 'stack/compose.yaml');
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries).toEqual([
      {
        reference: 'nginx:1.25.3',
        file: 'stack/compose.yaml',
        line: 3,
        name: 'web (stack/compose.yaml)',
        key: 'service:web',
        labels: { 'dd.tag.include': '^\\d+\\.\\d+\\.\\d+$' },
      },
      {
        reference: 'redis:7.2',
        file: 'stack/compose.yaml',
        line: 11,
        name: 'cache (stack/compose.yaml)',
        key: 'service:cache',
        labels: { 'dd.watch': 'false' },
      },
    ]);
  });

  it('reports a YAML syntax error with its line and marks the file failed', () => {
    const parsed = parseComposeFile('services:\n  web:\n    image: [nginx\n', 'compose.yml');
    expect(parsed.failed).toBe(true);
    expect(parsed.entries).toEqual([]);
    expect(parsed.problems[0]).toMatchObject({
      file: 'compose.yml',
      message: expect.stringMatching(/YAML syntax error/),
    });
    expect(parsed.problems[0]?.line).toBeGreaterThanOrEqual(3);
  });

  it('reports a variable without a default at its line, and keeps the other services', () => {
    const parsed = parseComposeFile(
      'services:\n  a:\n    image: app:${TAG}\n  b:\n    image: busybox:1.36\n',
      'compose.yaml',
    );
    expect(parsed.entries.map((entry) => entry.reference)).toEqual(['busybox:1.36']);
    expect(parsed.problems).toEqual([
      { file: 'compose.yaml', line: 3, message: expect.stringMatching(/without a default/) },
    ]);
  });

  it('tells Dockerfiles and compose files by name', () => {
    expect(
      [
        'Dockerfile',
        'api.Dockerfile',
        'Dockerfile.prod',
        'Containerfile',
        'compose.yaml',
        'docker-compose.override.yml',
        'compose.dev.yml',
        'README.md',
        'values.yaml',
        'Dockerfile.dockerignore',
      ].map(sourceFileKind),
    ).toEqual([
      'dockerfile',
      'dockerfile',
      'dockerfile',
      'dockerfile',
      'compose',
      'compose',
      'compose',
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('parseImageList', () => {
  it('reads references and items with name and dd.* keys, YAML and JSON alike', () => {
    const yaml = parseImageList(
      'images:\n  - nginx:1.25\n  - image: ghcr.io/acme/api:2.1.0\n    name: api\n    dd.tag.include: ^2\\.\n',
      'images.yml',
    );
    const json = parseImageList(
      '[\n  "nginx:1.25",\n  {"image": "ghcr.io/acme/api:2.1.0", "name": "api", "dd.tag.include": "^2\\\\."}\n]',
      'images.json',
    );
    for (const parsed of [yaml, json]) {
      expect(parsed.problems).toEqual([]);
      expect(parsed.entries.map(({ reference, name, labels }) => ({ reference, name, labels }))).toEqual([
        { reference: 'nginx:1.25', name: 'nginx:1.25', labels: {} },
        { reference: 'ghcr.io/acme/api:2.1.0', name: 'api', labels: { 'dd.tag.include': '^2\\.' } },
      ]);
    }
    expect(yaml.entries.map((entry) => entry.line)).toEqual([2, 3]);
    expect(json.entries.map((entry) => entry.line)).toEqual([2, 3]);
  });

  it('reports each bad item at its line and keeps the good ones', () => {
    const parsed = parseImageList(
      [
        '- nginx:1.25',
        '- image: bad::ref',
        '- colour: blue',
        '  image: redis:7',
        '- name: nameless',
        '- dd.hook.pre: rm',
        '- busybox:1.36',
      ].join('\n'),
      'list.yaml',
    );
    expect(parsed.entries.map((entry) => entry.reference)).toEqual(['nginx:1.25', 'busybox:1.36']);
    expect(parsed.problems.map(({ line, message }) => [line, message.split(':')[0]])).toEqual([
      [2, 'invalid image reference "bad'],
      [3, 'unknown key "colour"'],
      [5, 'an item without `image'],
      [6, 'unknown key "dd.hook.pre"'],
    ]);
  });

  it('refuses a list that is neither a sequence nor a map with images, as a whole', () => {
    const parsed = parseImageList('just: text\n', 'list.yaml');
    expect(parsed.failed).toBe(true);
    expect(parsed.problems).toEqual([{ file: 'list.yaml', line: 1, message: expect.stringMatching(/sequence/) }]);
    expect(parseImageList('', 'empty.yaml')).toEqual({ entries: [], problems: [] });
  });
});
