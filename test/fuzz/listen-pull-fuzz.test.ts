/**
 * Fuzz of a listen-mode agent's pull route, `POST /api/images/pull` (docs/listen-mode.md "This
 * agent's additions"), against the agent as `npm run agent -- --listen` starts it, over real HTTP.
 *
 * Invariants, for every request: never a hang, every answer the http-interface §2.15 JSON body, and
 * only these: 400 naming `body` (not the schema's shape) or `reference` (not an image reference),
 * 404 for an unknown watcher, or 500 `details.code: failed` for a pull Docker was asked for. The
 * watcher's Docker socket does not exist, so every request that gets past validation fails at
 * Docker with that 500, quickly. Two oracles independent of the agent's code: a reference outside
 * the Engine's own grammar (distribution/reference, below) is always refused with 400 before Docker
 * is asked, and every generated well-formed reference reaches Docker. Deterministic:
 * FUZZ_SEED=<seed> npx vitest run test/fuzz/listen-pull-fuzz.test.ts.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { AgentImagePullRequestSchema } from '../../shared/agent-api/listen-schemas';
import {
  encodeComponent,
  type FieldSpec,
  genJsonBody,
  HOSTILE_STRINGS,
  hostileJsonValue,
  preview,
  type Rng,
  rngFor,
} from './generators';
import { SEED, SEED_TAG } from './support/fuzz-seed';
import { useListenAgentCall } from './support/listen-agent-call';

const SECRET = 'listen-pull-fuzz-secret-0123456789';
const CASES = 150;
const decoder = new TextDecoder();

/**
 * The Engine's reference grammar (github.com/distribution/reference regexp.go, without IPv6 hosts,
 * which the agent refuses too), and its 255-character name limit.
 */
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?`;
// Go's `[-]*` as `-+`: the same language (an empty separator only joins two runs), without the
// exponential backtracking JavaScript's engine would take on a long component that fails.
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^(${NAME})(?::${TAG})?(?:@${DIGEST})?$`);
const inEngineGrammar = (reference: string) => {
  const match = REFERENCE.exec(reference);
  return match !== null && (match[1] as string).length <= 255;
};

const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';
const word = (rng: Rng, alphabet = LOWER, max = 8) =>
  Array.from({ length: rng.int(1, max) }, () => alphabet[rng.int(0, alphabet.length - 1)]).join('');

/** A reference the Engine's grammar allows: optional registry, one to three path components, tag and digest. */
function wellFormedReference(rng: Rng): string {
  const registry = rng.pick(['', '', '127.0.0.1:5000/', 'registry.example/', 'localhost:5000/', 'ghcr.io/', 'A.B:1/']);
  const separator = () => rng.pick(['.', '_', '__', '-', '--']);
  const component = () => (rng.bool() ? word(rng) : `${word(rng)}${separator()}${word(rng)}`);
  const path = Array.from({ length: rng.int(1, 3) }, component).join('/');
  const tag = rng.bool(0.7) ? `:${word(rng, `${LOWER}ABC_`, 1)}${word(rng, `${LOWER}_.-`, 20)}` : '';
  const digest = rng.bool(0.2) ? `@sha256:${word(rng, '0123456789abcdef', 1).padEnd(64, 'a')}` : '';
  return `${registry}${path}${tag}${digest}`;
}

/** A well-formed reference with a hostile piece in it, or a hostile string alone. */
function hostileReference(rng: Rng): string {
  const base = wellFormedReference(rng);
  const hostile = rng.pick(HOSTILE_STRINGS);
  switch (rng.int(0, 5)) {
    case 0:
      return hostile;
    case 1:
      return `${hostile}/${base}`;
    case 2:
      return `${base}${hostile}`;
    case 3:
      return `${base}:${rng.pick([':', '', '-x', 'a'.repeat(129)])}`;
    case 4:
      return rng.pick(['/app', 'app/', 'a//b', 'UPPER', 'a/../b', 'host:99x/app', '-a.example/app', 'a@sha256:abc']);
    default:
      return `${'a'.repeat(rng.int(200, 300))}/${base}`;
  }
}

const FIELDS: Readonly<Record<string, FieldSpec>> = {
  reference: { valid: wellFormedReference },
  auth: { valid: () => ({ username: 'u', password: 'p', serverAddress: 'registry.example' }) },
  timeoutMs: { valid: (rng) => rng.int(1, 60_000) },
};

describe(`listen-mode agent pull route fuzz (${SEED_TAG})`, () => {
  const { listen, call } = useListenAgentCall(SECRET);
  const pull = (body: string | Uint8Array<ArrayBuffer>, query: string, contentType: string | undefined) =>
    call(`/api/images/pull${query}`, {
      method: 'POST',
      ...(contentType !== undefined && { headers: { 'content-type': contentType } }),
      body,
    });
  /** The answer's status and JSON error body; fails on anything but the statuses the route may answer. */
  const answer = async (response: Response, label: string) => {
    expect([400, 404, 500], `${label}: ${response.status}`).toContain(response.status);
    const body = (await response.json()) as { error?: unknown; details?: { parameter?: string; code?: string } };
    expect(typeof body.error, label).toBe('string');
    if (response.status === 500) expect(body.details, label).toEqual({ code: 'failed' });
    if (response.status === 400) expect(['body', 'reference'], label).toContain(body.details?.parameter);
    return { status: response.status, parameter: body.details?.parameter };
  };

  it('answers every generated body with 400 for a bad shape, else a pull Docker was asked for', async () => {
    const rng = rngFor(SEED, 'listen-pull-bodies');
    for (let i = 0; i < CASES; i++) {
      const body = genJsonBody(rng, FIELDS, { allowHuge: false });
      const text = decoder.decode(body.bytes);
      const label = `#${i} ${body.label}: ${preview(text)}`;
      const { status, parameter } = await answer(await pull(body.bytes, '?watcher=local', body.contentType), label);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      const shaped = v.safeParse(AgentImagePullRequestSchema, parsed);
      if (!shaped.success) expect([status, parameter], label).toEqual([400, 'body']);
      else if (!inEngineGrammar(shaped.output.reference))
        expect([status, parameter], label).toEqual([400, 'reference']);
      // The valid pool's references, and the few hostile strings that are references (`null`), reach Docker.
      else expect(status, label).toBe(500);
    }
  });

  it('refuses every reference outside the Engine grammar with 400 and pulls every well-formed one', async () => {
    const rng = rngFor(SEED, 'listen-pull-references');
    let refused = 0;
    for (let i = 0; i < CASES * 2; i++) {
      const reference = i % 2 === 0 ? wellFormedReference(rng) : hostileReference(rng);
      const label = `#${i}: ${preview(JSON.stringify(reference))}`;
      const { status, parameter } = await answer(
        await pull(JSON.stringify({ reference }), '?watcher=local', 'application/json'),
        label,
      );
      if (reference.length === 0 || reference.length > 512) expect([status, parameter], label).toEqual([400, 'body']);
      else if (!inEngineGrammar(reference)) expect([status, parameter], label).toEqual([400, 'reference']);
      if (i % 2 === 0) expect(inEngineGrammar(reference), `the generator: ${label}`).toBe(true);
      if (i % 2 === 0) expect(status, label).toBe(500);
      if (status === 400) refused++;
    }
    // The hostile half is mostly refused (a few hostile strings are references: `null`, `true`).
    expect(refused).toBeGreaterThan(CASES / 2);
  });

  it('answers 404 for hostile watcher names and 401 without the secret, Docker never asked', async () => {
    const rng = rngFor(SEED, 'listen-pull-watchers');
    for (let i = 0; i < CASES; i++) {
      const watcher = encodeComponent(rng.pick(HOSTILE_STRINGS));
      const label = `#${i} ${preview(watcher)}`;
      const { status } = await answer(
        await pull(JSON.stringify({ reference: 'app:1' }), `?watcher=${watcher}`, 'application/json'),
        label,
      );
      expect(status, label).toBe(404);
    }
    const refused = await fetch(`${listen.agent().url}/api/images/pull`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Dd-Agent-Secret': `${SECRET}x` },
      body: JSON.stringify({ reference: 'app:1', auth: { username: 'u', password: hostileJsonValue(rng) } }),
    });
    expect(refused.status).toBe(401);
  });
});
