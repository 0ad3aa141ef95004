import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { rewriteServiceImage } from './compose-rewrite';

const change = { service: 'web', oldImage: 'nginx:1.25', newImage: 'nginx:1.26' };

const BASE = `# the stack
name: demo

services:
  # the front
  web:
    image: nginx:1.25   # pinned on purpose
    ports: ["8080:80"]

  db:
    image: postgres:16
`;

/** Every character outside [from, to) of `before` is still there, in order, around `replacement`. */
function onlyReplaced(before: string, after: string, from: string, replacement: string): void {
  const at = before.indexOf(from);
  expect(at).toBeGreaterThanOrEqual(0);
  expect(after).toBe(`${before.slice(0, at)}${replacement}${before.slice(at + from.length)}`);
}

describe('rewriteServiceImage', () => {
  it('replaces only the scalar, keeping the comment, the blank lines and the other services', () => {
    const result = rewriteServiceImage(BASE, change);
    expect(result.status).toBe('rewritten');
    if (result.status !== 'rewritten') return;
    onlyReplaced(BASE, result.text, 'nginx:1.25', 'nginx:1.26');
  });

  it.each([
    ['double quotes', `services:\n  web:\n    image: "nginx:1.25"\n`, '"nginx:1.25"', '"nginx:1.26"'],
    ['single quotes', `services:\n  web:\n    image: 'nginx:1.25'\n`, "'nginx:1.25'", "'nginx:1.26'"],
    ['a flow mapping', `services:\n  web: {image: nginx:1.25, restart: always}\n`, 'nginx:1.25', 'nginx:1.26'],
    ['CRLF line ends', `services:\r\n  web:\r\n    image: nginx:1.25\r\n`, 'nginx:1.25', 'nginx:1.26'],
    ['a byte order mark', `\ufeffservices:\n  web:\n    image: nginx:1.25\n`, 'nginx:1.25', 'nginx:1.26'],
    ['tabs before a comment', `services:\n  web:\n    image: nginx:1.25\t# c\n`, 'nginx:1.25', 'nginx:1.26'],
    ['a quoted key', `services:\n  "web":\n    "image": nginx:1.25\n`, 'nginx:1.25', 'nginx:1.26'],
  ])('keeps %s', (_name, text, from, to) => {
    const result = rewriteServiceImage(text, change);
    expect(result.status).toBe('rewritten');
    if (result.status === 'rewritten') onlyReplaced(text, result.text, from, to);
  });

  it('compares references normalised: the Hub host, library/ and :latest are implied', () => {
    const text = 'services:\n  web:\n    image: docker.io/library/nginx:1.25\n';
    expect(rewriteServiceImage(text, change)).toEqual({
      status: 'rewritten',
      text: 'services:\n  web:\n    image: nginx:1.26\n',
    });
    const latest = rewriteServiceImage('services:\n  web:\n    image: nginx\n', {
      ...change,
      oldImage: 'nginx:latest',
    });
    expect(latest).toEqual({ status: 'rewritten', text: 'services:\n  web:\n    image: nginx:1.26\n' });
  });

  it('answers unchanged for a digest-only update and for a file that already names the new image', () => {
    expect(rewriteServiceImage(BASE, { ...change, newImage: 'nginx:1.25' })).toMatchObject({
      status: 'unchanged',
      reason: expect.stringMatching(/digest-only/),
    });
    expect(rewriteServiceImage(BASE.replace('1.25', '1.26'), change)).toMatchObject({
      status: 'unchanged',
      reason: expect.stringMatching(/already names/),
    });
  });

  it.each([
    ['a missing service', 'services:\n  api:\n    image: nginx:1.25\n', 'absent', /service "web" not found/],
    ['a build-only service', 'services:\n  web:\n    build: .\n', 'absent', /no image: key/],
    ['no services', 'name: x\n', 'absent', /services not found/],
    ['an empty file', '', 'absent', /empty/],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own interpolation, written literally
    ['interpolation', 'services:\n  web:\n    image: nginx:${TAG}\n', 'refused', /interpolation/],
    ['an alias', 'x: &img nginx:1.25\nservices:\n  web:\n    image: *img\n', 'refused', /alias/],
    [
      'an anchor on the value',
      'services:\n  web:\n    image: &img nginx:1.25\n  b:\n    image: *img\n',
      'refused',
      /anchor/,
    ],
    ['a merge key', 'x: &base\n  image: nginx:1.25\nservices:\n  web:\n    <<: *base\n', 'refused', /merges keys/],
    ['extends', 'services:\n  web:\n    extends: {file: base.yml, service: web}\n', 'refused', /extends/],
    ['a service alias', 'x: &svc\n  image: nginx:1.25\nservices:\n  web: *svc\n', 'refused', /alias/],
    [
      'duplicate keys',
      'services:\n  web:\n    image: nginx:1.25\n  web:\n    image: nginx:1.25\n',
      'refused',
      /duplicate keys/,
    ],
    ['invalid YAML', 'services:\n  web:\n    image: "nginx:1.25\n', 'refused', /invalid YAML/],
    [
      'another image',
      'services:\n  web:\n    image: httpd:2.4\n',
      'refused',
      /names httpd:2.4, not the container's image nginx:1.25/,
    ],
    ['a block scalar', 'services:\n  web:\n    image: >-\n      nginx:1.25\n', 'refused', /block scalar/],
    ['a non-string', 'services:\n  web:\n    image: 12\n', 'refused', /not a string/],
  ])('refuses or passes over %s', (_name, text, status, reason) => {
    const result = rewriteServiceImage(text, change);
    expect(result.status).toBe(status);
    expect(result).toMatchObject({ reason: expect.stringMatching(reason) });
  });
});

/** mulberry32: a small seeded generator, so a failing case can be replayed from its seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('rewriteServiceImage, seeded fuzz', () => {
  const COMMENTS = ['', '  # keep me', ' #x: image: nginx:1.25', '\t# tab'];
  const QUOTES = [(s: string) => s, (s: string) => `'${s}'`, (s: string) => `"${s}"`];
  const OLD = ['nginx:1.25', 'docker.io/library/nginx:1.25', 'library/nginx:1.25'];

  it.each(Array.from({ length: 200 }, (_, seed) => seed))(
    'seed %i: only the scalar changes and the result reads back',
    (seed) => {
      const random = seeded(seed);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
      const indent = ' '.repeat(1 + Math.floor(random() * 4));
      const quote = pick(QUOTES);
      const old = pick(OLD);
      const lineEnd = random() < 0.2 ? '\r\n' : '\n';
      const decoy = random() < 0.5 ? `${indent}${indent}# image: nginx:1.25 in a comment${lineEnd}` : '';
      const [header, otherComment, webComment, imageComment] = [
        pick(COMMENTS),
        pick(COMMENTS),
        pick(COMMENTS),
        pick(COMMENTS),
      ];
      const gap = ' '.repeat(1 + Math.floor(random() * 3));
      const version = random() < 0.5 ? '' : 'version: "3.9"';
      const restart = random() < 0.5 ? '' : `${indent}${indent}restart: unless-stopped`;
      const imageLast = random() < 0.5;
      // The same document around either value: the expected result is the input with only the scalar swapped.
      const render = (value: string) => {
        const image = `${decoy}${indent}${indent}image:${gap}${value}${imageComment}`;
        const keys = [restart, `${indent}${indent}environment: [A=1]`];
        return [
          `# header ${seed}${header}`,
          version,
          'services:',
          `${indent}other:`,
          `${indent}${indent}image: nginx:1.25${otherComment}`,
          `${indent}web:${webComment}`,
          ...(imageLast ? [...keys, image] : [image, ...keys]),
          '',
        ].join(lineEnd);
      };
      const text = render(quote(old));
      const result = rewriteServiceImage(text, {
        service: 'web',
        oldImage: 'nginx:1.25',
        newImage: 'ghcr.io/acme/nginx:1.26',
      });
      expect(result).toEqual({ status: 'rewritten', text: render(quote('ghcr.io/acme/nginx:1.26')) });
      if (result.status !== 'rewritten') return;
      const reread = parseDocument(result.text);
      expect(reread.errors).toEqual([]);
      expect(reread.getIn(['services', 'web', 'image'])).toBe('ghcr.io/acme/nginx:1.26');
      expect(reread.getIn(['services', 'other', 'image'])).toBe('nginx:1.25');
    },
  );
});
