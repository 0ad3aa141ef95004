/**
 * Fuzz of the configuration routes (docs/configuration-file.md): validate, write and the editors
 * with YAML texts drawn from valid lines, invalid values and hostile YAML (aliases, tags, merge
 * keys, duplicate keys, deep nesting, prototype keys), JSON variable objects and hostile path
 * segments, against the hub on Node with a real DD_CONFIG_FILE.
 *
 * Invariants: never a 5xx, every error an http-interface §2.15 JSON body, 2xx bodies that validate;
 * a validation never touches the file; a refused write or edit leaves the file byte for byte as it
 * was; the file's secret is never echoed in any answer, and an accepted write that sent the mask
 * back keeps it. FUZZ_SEED=<seed> replays a run.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ErrorBodySchema } from '../../shared/schemas/error-body';
import { createServerHub, type HubClient, jsonInit } from '../support/hub-harness';
import { genPathSegment, HOSTILE_STRINGS, hostileJsonValue, preview, type Rng, rngFor } from './generators';
import { SEED, SEED_TAG } from './support/fuzz-seed';

const SECRET = 'agent-secret-5c1d9e0a';
const BASE = [
  '# fuzzed',
  `DD_AGENT_REMOTE_SECRET: ${SECRET}`,
  'DD_AGENT_REMOTE_HOST: 127.0.0.1',
  'DD_AGENT_REMOTE_PORT: 9',
  '',
].join('\n');

const VALID_LINES = [
  'DD_AUDIT_RETENTION_DAYS: 30',
  'DD_LOG_FORMAT: pretty',
  'DD_WATCHER:\n  fz:\n    socket: /tmp/fuzz.sock\n    cron: "*/5 * * * *"',
  'DD_NOTIFICATION_HTTP_FZ_URL: http://127.0.0.1:9/hook',
  'DD_ACTION_DOCKER_FZ_PRUNE: true',
  'DD_AGENT_REMOTE_SECRET: "***"',
  'DD_REGISTRY_HUB_FZ_LOGIN: someone',
];
const BAD_LINES = [
  'DD_AUDIT_RETENTION_DAYS: forever',
  'DD_STORE_DRIVER: floppy',
  'DD_WATCHER_FZ_CRON: [1, 2]',
  'DD_NOTIFICATION_NOPE_FZ_URL: http://x',
  'DD_ACTION_DOCKER_FZ_PRUNE: perhaps',
  'DD_REGISTRY_NOPE_FZ_URL: x',
  'DD_TRIGGER_OLD_X_URL: http://x',
  'DD_X__FILE: /etc/shadow',
  'DD_CONFIG_FILE: /etc/passwd',
  'PORT: 1',
  'DD_A: &a {B: 1}\nDD_C: *a',
  'DD_A: !!binary aGVsbG8=',
  '<<: {DD_A: 1}',
  'DD_A: 1\nDD_A: 2',
  'DD_A: null',
  '__proto__: {DD_A: 1}',
  'DD_A:\n  constructor: 1',
  '- DD_A',
  'DD_A: "unterminated',
  '\tDD_A: 1',
  `DD_A: ${'['.repeat(200)}`,
  'DD_DEEP:\n' + Array.from({ length: 60 }, (_, i) => `${'  '.repeat(i + 1)}k${i}:`).join('\n') + ' 1',
  'DD_AGENT_NEW_SECRET: "***"',
];

function genContent(rng: Rng): string {
  const lines: string[] = [];
  for (let i = rng.int(0, 4); i > 0; i--) {
    const roll = rng.next();
    if (roll < 0.5) lines.push(rng.pick(VALID_LINES));
    else if (roll < 0.85) lines.push(rng.pick(BAD_LINES));
    else lines.push(`DD_${rng.pick(['A', 'LOG_LEVEL', 'SERVER_HOST'])}: ${JSON.stringify(rng.pick(HOSTILE_STRINGS))}`);
  }
  return rng.bool(0.7) ? `${BASE}${lines.join('\n')}\n` : lines.join('\n');
}

function genBody(rng: Rng): unknown {
  const roll = rng.next();
  if (roll < 0.6) return { content: genContent(rng) };
  if (roll < 0.75)
    return { variables: rng.bool() ? { DD_LOG_FORMAT: rng.pick(['json', 'pretty', 'xml']) } : hostileJsonValue(rng) };
  if (roll < 0.85) return { content: genContent(rng), variables: {} };
  return hostileJsonValue(rng);
}

const ValidationSchema = v.object({
  valid: v.boolean(),
  problems: v.array(v.object({ variable: v.string(), message: v.string() })),
  variables: v.array(v.string()),
  overridden: v.array(v.string()),
});
const ReloadSchema = v.object({
  applied: v.array(v.string()),
  restartRequired: v.array(v.string()),
  backup: v.optional(v.string()),
});

describe(`configuration routes fuzz (${SEED_TAG})`, () => {
  let dir: string;
  let file: string;
  let hub: HubClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hub-config-fuzz-'));
    file = join(dir, 'hub.yaml');
    await writeFile(file, BASE);
    hub = await createServerHub({ DD_CONFIG_FILE: file });
  });
  afterAll(async () => {
    await hub?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Sends one request and checks the invariants every answer holds; returns the status and body. */
  async function call(path: string, init: RequestInit, label: string): Promise<{ status: number; body: unknown }> {
    const response = await hub.request(path, init);
    const text = await response.text();
    const where = `${label}: ${init.method} ${preview(path)} ${preview(String(init.body ?? ''))} -> ${response.status} ${preview(text)}`;
    expect(response.status, where).toBeLessThan(500);
    expect(text, where).not.toContain(SECRET);
    const body = text === '' ? undefined : JSON.parse(text);
    if (response.status >= 400) expect(v.is(ErrorBodySchema, body), where).toBe(true);
    return { status: response.status, body };
  }

  it('validate answers problems or a §2.15 error, and never touches the file', async () => {
    const rng = rngFor(SEED, 'config-validate');
    for (let i = 0; i < 150; i++) {
      const before = await readFile(file, 'utf8');
      const { status, body } = await call('/api/v1/config/validate', jsonInit('POST', genBody(rng)), `validate ${i}`);
      if (status === 200) expect(v.is(ValidationSchema, body), JSON.stringify(body)).toBe(true);
      else expect([400, 413, 415]).toContain(status);
      expect(await readFile(file, 'utf8')).toBe(before);
    }
  });

  it('write applies what validates and refuses the rest with the file unchanged', async () => {
    const rng = rngFor(SEED, 'config-write');
    let accepted = 0;
    for (let i = 0; i < 80; i++) {
      const before = await readFile(file, 'utf8');
      const body = genBody(rng);
      const { status, body: answer } = await call('/api/v1/config', jsonInit('PUT', body), `write ${i}`);
      const after = await readFile(file, 'utf8');
      if (status !== 200) {
        expect([400, 413, 415]).toContain(status);
        expect(after, `write ${i} refused but changed the file`).toBe(before);
        continue;
      }
      accepted++;
      expect(v.is(ReloadSchema, answer)).toBe(true);
      // A mask sent back for the agent's secret kept the value the file held.
      const sent = (body as { content?: string }).content ?? '';
      if (/DD_AGENT_REMOTE_SECRET: (\S+)/.exec(sent)?.[1]?.includes('***') || sent.startsWith(BASE))
        expect((parse(after) as Record<string, unknown>).DD_AGENT_REMOTE_SECRET).toBe(SECRET);
      // Back to the base file, through the API, for the next case.
      await call('/api/v1/config', jsonInit('PUT', { content: BASE }), `reset ${i}`);
    }
    expect(accepted).toBeGreaterThan(3);
  });

  it('the editors refuse hostile names and bodies without a 5xx or a changed file', async () => {
    const rng = rngFor(SEED, 'config-editors');
    for (let i = 0; i < 120; i++) {
      const before = await readFile(file, 'utf8');
      const family = rng.pick(['watchers/%s', 'triggers/http/%s', 'triggers/%s/x', 'actions/%s']);
      const path = `/api/v1/config/${family.replace('%s', rng.bool(0.3) ? 'fz' : genPathSegment(rng))}`;
      const method = rng.pick(['PUT', 'DELETE']);
      const body = rng.bool(0.5)
        ? {
            values: {
              [rng.pick(['url', 'cron', 'prune', 'a_b', '__proto__', ''])]: rng.pick([
                ...HOSTILE_STRINGS.slice(0, 20),
                '***',
                'http://127.0.0.1:9/x',
              ]),
            },
          }
        : hostileJsonValue(rng);
      const init = method === 'DELETE' ? { method } : jsonInit(method, body);
      const { status } = await call(path, init, `editor ${i}`);
      if (status >= 400) expect(await readFile(file, 'utf8')).toBe(before);
    }
    // The hub still reads its configuration, and the secret is still the file's.
    const { status } = await call('/api/v1/config', { method: 'GET' }, 'read after');
    expect(status).toBe(200);
    expect(await readFile(file, 'utf8')).toContain(SECRET);
  });
});
