/**
 * Seeded fuzz of the notification template evaluator (hub/src/notifications/template*.ts):
 *
 * - random expressions over primitives agree with JavaScript itself (the oracle is the same text
 *   run by `new Function`, here in the test only, with `?.` for every property step);
 * - random property paths through prototype names never reach code or print `[object …]`;
 * - random text never makes compile or render throw anything but a TemplateSyntaxError, and
 *   renders stay bounded.
 *
 * Reproduce a failure with FUZZ_SEED=<seed> npx vitest run test/fuzz/template-fuzz.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { compileTemplate, MAX_RENDERED_LENGTH, renderCompiled } from '../../hub/src/notifications/template';
import { printValue } from '../../hub/src/notifications/template-evaluate';
import { TemplateSyntaxError } from '../../hub/src/notifications/template-expression';
import { hashString, Rng, seedFromEnv, seedHex } from './generators';

const SEED = seedFromEnv(process.env['FUZZ_SEED']);
const SEED_TAG = `seed ${seedHex(SEED)}`;
const rngFor = (batch: string) => new Rng((SEED ^ hashString(batch)) >>> 0);

/** Leaves are primitives only: on objects JavaScript prints `[object Object]` where templates print nothing, by design. */
const SCOPE = {
  container: {
    name: 'web',
    n: 3,
    z: 0,
    half: 0.5,
    e: '',
    t: true,
    f: false,
    nul: null,
    s: '10',
    tag: { kind: 'tag', v: '2.0.0' },
    arr: ['a', 'b'],
  },
  containers: [{ name: 'a' }, { name: 'b' }],
  event: 'update-available',
};

/** Each path as the template writes it and as the oracle does (every step optional). */
const PATHS: readonly (readonly [string, string])[] = [
  'container.name',
  'container.n',
  'container.z',
  'container.half',
  'container.e',
  'container.t',
  'container.f',
  'container.nul',
  'container.s',
  'container.tag.kind',
  'container.tag.v',
  'container.missing',
  'container.tag.missing',
  'container.missing.deeper',
  'container.nul.deeper',
  'containers.length',
  'container.arr.length',
  'container.name.length',
  'event',
  'event.length',
].map((path) => [path, path.replaceAll('.', '?.')] as const);
const INDEXED: readonly (readonly [string, string])[] = [
  ['containers[0].name', 'containers?.[0]?.name'],
  ['containers[5].name', 'containers?.[5]?.name'],
  ["container['tag'].kind", "container?.['tag']?.kind"],
  ['container.arr[1]', 'container?.arr?.[1]'],
];
const LITERALS = ['0', '1', '2.5', "''", "'a'", "'10'", "'web'", 'true', 'false', 'null', 'undefined'];
const BINARY = ['+', '===', '!==', '<', '<=', '>', '>=', '&&', '||', '??'];

/** A random expression, written twice: for the template and for JavaScript. */
function genExpression(rng: Rng, depth: number): [string, string] {
  if (depth <= 0 || rng.bool(0.3)) {
    if (rng.bool(0.35)) {
      const literal = rng.pick(LITERALS);
      return [literal, literal];
    }
    return [...rng.pick(rng.bool(0.8) ? PATHS : INDEXED)] as [string, string];
  }
  const shape = rng.int(0, 9);
  if (shape === 0) {
    const [a, b] = genExpression(rng, depth - 1);
    return [`!(${a})`, `!(${b})`];
  }
  if (shape === 1) {
    const [t1, t2] = genExpression(rng, depth - 1);
    const [c1, c2] = genExpression(rng, depth - 1);
    const [a1, a2] = genExpression(rng, depth - 1);
    return [`((${t1}) ? (${c1}) : (${a1}))`, `((${t2}) ? (${c2}) : (${a2}))`];
  }
  const operator = rng.pick(BINARY);
  const [l1, l2] = genExpression(rng, depth - 1);
  const [r1, r2] = genExpression(rng, depth - 1);
  return [`((${l1}) ${operator} (${r1}))`, `((${l2}) ${operator} (${r2}))`];
}

function oracle(source: string): string {
  // The oracle is JavaScript itself; only this test builds a function from text.
  const run = new Function('container', 'containers', 'event', `return (${source});`) as (
    ...args: unknown[]
  ) => unknown;
  return printValue(run(SCOPE.container, SCOPE.containers, SCOPE.event));
}

const PROTO_SEGMENTS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'length',
  'name',
  '0',
  'arr',
  'tag',
  'call',
  'apply',
  'bind',
];

const HOSTILE_PIECES = [
  '${',
  '}',
  '$',
  '{',
  '(',
  ')',
  '[',
  ']',
  "'",
  '"',
  '\\',
  '.',
  '?.',
  '?',
  ':',
  '||',
  '??',
  '&&',
  '!',
  '+',
  '===',
  '<',
  ' ',
  '\n',
  'container',
  'containers',
  '__proto__',
  'constructor',
  'length',
  '0',
  '1e999',
  '`',
  '=',
  ';',
  'é',
  '\u0000',
  '\ud800',
];

describe(`notification template evaluator fuzz (${SEED_TAG})`, () => {
  it('agrees with JavaScript on random expressions over primitives', () => {
    const rng = rngFor('template-oracle');
    const mismatches: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const [template, javascript] = genExpression(rng, rng.int(1, 5));
      const got = renderCompiled(compileTemplate(`\${${template}}`), SCOPE);
      const want = oracle(javascript);
      if (got !== want && mismatches.length < 5)
        mismatches.push(`#${i} ${template}: got ${JSON.stringify(got)}, JavaScript ${JSON.stringify(want)}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('never reaches code through prototype names', () => {
    const rng = rngFor('template-proto');
    for (let i = 0; i < 3000; i++) {
      const root = rng.pick(['container', 'containers', 'event', 'container.tag', 'container.arr', 'nothing']);
      const steps = Array.from({ length: rng.int(1, 5) }, () => {
        const segment = rng.pick(PROTO_SEGMENTS);
        return rng.bool() && /^[a-z_]/i.test(segment) ? `.${segment}` : `['${segment}']`;
      });
      const source = `\${${root}${steps.join('')}}`;
      const out = renderCompiled(compileTemplate(source), SCOPE);
      expect(out, `#${i} ${source}`).not.toMatch(/function|native code|\[object|=>/);
      // What may print: a number (a length), or a string the data holds.
      expect(out, `#${i} ${source}`).toMatch(/^(|\d+|web|a|b|tag|2\.0\.0|update-available)$/);
    }
  });

  it('random text compiles or fails with a syntax error, and renders bounded', () => {
    const rng = rngFor('template-text');
    for (let i = 0; i < 5000; i++) {
      const source = Array.from({ length: rng.int(0, 40) }, () => rng.pick(HOSTILE_PIECES)).join('');
      let compiled: ReturnType<typeof compileTemplate>;
      try {
        compiled = compileTemplate(source);
      } catch (error) {
        expect(error, `#${i} ${JSON.stringify(source)}`).toBeInstanceOf(TemplateSyntaxError);
        continue;
      }
      const out = renderCompiled(compiled, SCOPE);
      expect(typeof out).toBe('string');
      expect(out.length).toBeLessThanOrEqual(MAX_RENDERED_LENGTH + 1);
      expect(out, `#${i} ${JSON.stringify(source)}`).not.toMatch(/function|native code|\[object/);
    }
  });

  it('stays fast on large hostile input', () => {
    const rng = rngFor('template-large');
    const started = performance.now();
    for (let i = 0; i < 50; i++) {
      const source = Array.from({ length: 3000 }, () => rng.pick(HOSTILE_PIECES)).join('');
      try {
        renderCompiled(compileTemplate(source), SCOPE);
      } catch (error) {
        expect(error).toBeInstanceOf(TemplateSyntaxError);
      }
    }
    const long = `\${${Array.from({ length: 450 }, () => 'container.name').join(' + ')}}`;
    expect(renderCompiled(compileTemplate(long), SCOPE)).toHaveLength(1350);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
