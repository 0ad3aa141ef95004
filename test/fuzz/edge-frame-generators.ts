/**
 * Seeded generators of hostile edge/1.0 frames and the oracle that says, from
 * docs/edge-protocol.md alone, how the hub must answer each: which close code, or that the
 * session stays open. Driven by the same Rng as the HTTP fuzz (./generators), so a failing case
 * is reproduced with FUZZ_SEED.
 */
import { Cron } from 'croner';
import * as v from 'valibot';
import {
  AgentFrameSchema,
  EDGE_CLOSE,
  EDGE_MAX_FRAME_BYTES,
  EDGE_PROTOCOL,
  EDGE_SIGN_IN_MAX_FRAME_BYTES,
} from '../../shared/edge/protocol';
import { sampleAgentInfo, sampleContainer, sampleImage } from '../support/edge-peer';
import { HOSTILE_STRINGS, hostileJsonValue, type Rng } from './generators';

/** Every image points at a closed loopback port: no registry outside this machine is ever asked. */
export const FUZZ_IMAGE = '127.0.0.1:9/fuzz/app:1.0.0';
export const WATCHER = 'local';

export type Outcome = 'open' | number;

// ---------------------------------------------------------------------------------------------
// Valid frames

const LABEL_KEYS = [
  'dd.watch',
  'dd.tag.include',
  'dd.tag.exclude',
  'dd.tag.transform',
  'dd.link.template',
  'dd.display.name',
  'dd.group',
  'dd.updatePolicy.snoozeUntil',
  'dd.updatePolicy.maturityMinAgeDays',
  'com.docker.compose.project',
];

function container(rng: Rng) {
  const labels: Record<string, string> = {};
  for (const key of rng.sample(LABEL_KEYS, rng.int(0, 4))) labels[key] = rng.bool() ? rng.pick(HOSTILE_STRINGS) : '1.0';
  return sampleContainer(`fuzz-${rng.int(0, 9999)}`, {
    image: FUZZ_IMAGE,
    labels,
    state: rng.pick(['running', 'exited', 'paused', 'created', 'restarting', 'dead', 'removing'] as const),
    ...(rng.bool() && { health: rng.pick(['starting', 'healthy', 'unhealthy'] as const) }),
  });
}

/** A valid frame of every kind an agent sends after the welcome, for a session that announced WATCHER only. */
export function validAgentFrame(rng: Rng): Record<string, unknown> {
  switch (rng.int(0, 9)) {
    case 0:
      return { type: 'ping' };
    case 1:
      return { type: 'pong' };
    case 2:
      return { type: 'info', agent: sampleAgentInfo({ uptimeSeconds: rng.int(0, 1e6) }) };
    case 3:
      return {
        type: 'container.changed',
        watcher: WATCHER,
        container: container(rng),
        image: sampleImage({ repoTags: [FUZZ_IMAGE] }),
      };
    case 4:
      return { type: 'container.removed', watcher: WATCHER, containerId: sampleContainer('x').id };
    case 5:
      return {
        type: 'snapshot',
        watcher: WATCHER,
        syncId: `sync-${rng.int(0, 1e6)}`,
        part: 0,
        last: rng.bool(0.8),
        containers: Array.from({ length: rng.int(0, 3) }, () => container(rng)),
        images: [sampleImage({ repoTags: [FUZZ_IMAGE] })],
      };
    case 6:
      return { type: 'reply', id: `r${rng.int(0, 99)}`, ok: true, result: { syncId: 's', containers: 1 } };
    case 7:
      return { type: 'reply', id: `r${rng.int(0, 99)}`, ok: false, error: { code: 'failed', message: 'no' } };
    case 8:
      // No export is pending on a fuzz session: a valid chunk is one nobody waits for, dropped.
      return {
        type: 'chunk',
        id: `r${rng.int(0, 99)}`,
        seq: rng.int(0, 3),
        data: Buffer.from(rng.pick(['x', 'tar', '\u0000'.repeat(rng.int(1, 600))])).toString('base64'),
      };
    default:
      return {
        type: 'stream',
        id: `r${rng.int(0, 99)}`,
        lines: [{ stream: 'stdout', ts: new Date().toISOString(), line: 'x' }],
      };
  }
}

// ---------------------------------------------------------------------------------------------
// Mutations

type Json = unknown;
type Path = (string | number)[];

function nodePaths(value: Json, prefix: Path = [], out: Path[] = []): Path[] {
  if (prefix.length > 0) out.push(prefix);
  if (Array.isArray(value)) {
    for (const [index, item] of value.slice(0, 4).entries()) nodePaths(item, [...prefix, index], out);
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) nodePaths((value as Record<string, Json>)[key], [...prefix, key], out);
  }
  return out;
}

function parentOf(root: Json, path: Path): { parent: Record<string | number, Json>; key: string | number } {
  let node = root as Record<string | number, Json>;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, Json>;
  return { parent: node, key: path.at(-1) as string | number };
}

/** Values that are close to valid: the edge of each schema's range rather than nonsense. */
function nearValue(rng: Rng): Json {
  return rng.pick<Json>([
    '',
    'a',
    'A'.repeat(257),
    'A'.repeat(1025),
    'local',
    'other-watcher',
    'edge/1.1',
    'edge/2.0',
    -1,
    0,
    1.5,
    2 ** 53,
    201,
    true,
    [],
    {},
    'r'.repeat(65),
  ]);
}

/** One structural change to a clone of the frame: a field replaced, removed, added, or an array blown up. */
export function mutateValue(rng: Rng, frame: Record<string, unknown>): Record<string, unknown> {
  const clone = structuredClone(frame);
  const paths = nodePaths(clone);
  if (paths.length === 0) return { type: rng.pick(['ping', 'info', '', 'hello']) };
  const path = rng.pick(paths);
  const { parent, key } = parentOf(clone, path);
  switch (rng.int(0, 5)) {
    case 0:
      parent[key] = hostileJsonValue(rng);
      break;
    case 1:
      parent[key] = nearValue(rng);
      break;
    case 2:
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      break;
    case 3: {
      // An unknown field: edge/1.x peers ignore fields they do not know.
      const target = rng.pick([clone, ...paths.map((p) => parentOf(clone, p).parent)]);
      if (target && typeof target === 'object' && !Array.isArray(target)) {
        (target as Record<string, Json>)[
          rng.pick(['x-extra', 'future', 'constructor', 'prototype', 'toString', 'ts'])
        ] = hostileJsonValue(rng);
      }
      break;
    }
    case 4:
      clone.type = rng.pick([
        'hello',
        'snapshot',
        'container.changed',
        'container.removed',
        'info',
        'stream',
        'chunk',
        'credit',
        'reply',
        'ping',
        'pong',
        'welcome',
        'challenge',
        'request',
        'PING',
        'ping ',
        '',
      ]);
      break;
    default: {
      const arrays = paths.filter((p) => Array.isArray(parentOf(clone, p).parent[parentOf(clone, p).key]));
      if (arrays.length === 0) {
        parent[key] = hostileJsonValue(rng);
        break;
      }
      const arrayPath = rng.pick(arrays);
      const at = parentOf(clone, arrayPath);
      const items = at.parent[at.key] as Json[];
      const item = items[0] ?? hostileJsonValue(rng);
      at.parent[at.key] = Array.from({ length: rng.pick([33, 201, 1001]) }, () => structuredClone(item));
    }
  }
  return clone;
}

/** A change to the JSON text itself: truncated, a character in or out, junk after it. */
export function mutateText(rng: Rng, text: string): string {
  const at = rng.int(0, Math.max(0, text.length - 1));
  switch (rng.int(0, 3)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return `${text.slice(0, at)}${rng.pick(['"', '{', '}', ',', '\\', '\u0000', 'x', ' ', '\u{1f433}'])}${text.slice(at)}`;
    case 2:
      return `${text.slice(0, at)}${text.slice(at + 1)}`;
    default:
      return `${text}${rng.pick([' ', '}', 'x', '\n{}', '[]'])}`;
  }
}

/** Nothing a fuzzed frame carries may get a container watched (and so looked up in a registry). */
export function keepUnwatched(frame: Json): Json {
  const visit = (node: Json): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
    } else if (node !== null && typeof node === 'object') {
      const record = node as Record<string, Json>;
      if (typeof record.labels === 'object' && record.labels !== null && !Array.isArray(record.labels)) {
        (record.labels as Record<string, Json>)['dd.watch'] = 'false';
      }
      for (const value of Object.values(record)) visit(value);
    }
  };
  visit(frame);
  return frame;
}

// ---------------------------------------------------------------------------------------------
// Garbage

export function garbageText(rng: Rng): string {
  switch (rng.int(0, 7)) {
    case 0:
      return '';
    case 1:
      return rng.pick(HOSTILE_STRINGS);
    case 2:
      return rng.pick([
        '1',
        'null',
        'true',
        '"ping"',
        '[]',
        '[{"type":"ping"}]',
        '{}',
        '{"type":null}',
        '{"type":{}}',
        '{"TYPE":"ping"}',
      ]);
    case 3: {
      const depth = rng.pick([100, 5_000, 100_000]);
      return rng.bool()
        ? `${'['.repeat(depth)}${']'.repeat(depth)}`
        : `${'{"type":'.repeat(depth)}1${'}'.repeat(depth)}`;
    }
    case 4:
      return Array.from({ length: rng.int(1, 200) }, () => String.fromCharCode(rng.int(0, 0xd7ff))).join('');
    case 5:
      return `{"type":"ping"${rng.pick(['', ',', ',"a":', '}}', ']'])}`;
    case 6:
      return JSON.stringify({
        type: 'snapshot',
        watcher: WATCHER,
        syncId: 's',
        part: 0,
        last: true,
        containers: 'many',
        images: [],
      });
    default:
      return `{"type":"hello","protocol":"${EDGE_PROTOCOL}","keyId":"${'0'.repeat(16)}","agentName":"x","signature":"!!"}`;
  }
}

export function randomBytes(rng: Rng, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = rng.int(0, 255);
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Oracle

const encoder = new TextEncoder();

type Parsed = { close: number } | { frame: v.InferOutput<typeof AgentFrameSchema>; raw: Record<string, unknown> };

/**
 * The wire rules every frame passes first (docs/edge-protocol.md "Connecting"): at most 4 MiB once
 * signed in, 32 KiB before (the 32 KiB is the hub's: the agent's own cap stays 4 MiB).
 */
function parseFrame(text: string, maxBytes: number): Parsed {
  if (encoder.encode(text).length > maxBytes) return { close: EDGE_CLOSE.tooLarge };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { close: EDGE_CLOSE.invalidFrame };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { close: EDGE_CLOSE.invalidFrame };
  const record = raw as Record<string, unknown>;
  if (record.type === 'hello' && record.protocol !== EDGE_PROTOCOL) return { close: EDGE_CLOSE.unsupportedVersion };
  const parsed = v.safeParse(AgentFrameSchema, raw);
  return parsed.success ? { frame: parsed.output, raw: record } : { close: EDGE_CLOSE.invalidFrame };
}

/** What a session that signed in (announcing WATCHER, no sync in progress) must do with this text frame. */
export function expectedAfterSignIn(text: string): Outcome {
  const parsed = parseFrame(text, EDGE_MAX_FRAME_BYTES);
  if ('close' in parsed) return parsed.close;
  const { frame } = parsed;
  if (frame.type === 'hello') return EDGE_CLOSE.invalidFrame;
  if (
    (frame.type === 'snapshot' || frame.type === 'container.changed' || frame.type === 'container.removed') &&
    frame.watcher !== WATCHER
  ) {
    return EDGE_CLOSE.invalidFrame;
  }
  if (frame.type === 'snapshot' && frame.part !== 0) return EDGE_CLOSE.invalidFrame;
  return 'open';
}

function watchersProblem(watchers: readonly { name: string; cron: string }[]): boolean {
  const names = new Set<string>();
  for (const watcher of watchers) {
    if (names.has(watcher.name)) return true;
    names.add(watcher.name);
    try {
      new Cron(watcher.cron, { paused: true }).stop();
    } catch {
      return true;
    }
  }
  return false;
}

/** What a fresh connection must do with this text as its first frame, `original` being the correctly signed hello. */
export function expectedBeforeSignIn(
  text: string,
  original: { keyId: string; agentName: string; signature: string },
): Outcome | 'welcome' {
  const parsed = parseFrame(text, EDGE_SIGN_IN_MAX_FRAME_BYTES);
  if ('close' in parsed) return parsed.close;
  const { frame } = parsed;
  if (frame.type !== 'hello') return EDGE_CLOSE.invalidFrame;
  if (watchersProblem(frame.watchers)) return EDGE_CLOSE.invalidFrame;
  // The signature binds key id and name (and the challenge): any change to the three fails alike.
  if (
    frame.keyId !== original.keyId ||
    frame.agentName !== original.agentName ||
    frame.signature !== original.signature
  ) {
    return EDGE_CLOSE.signInFailed;
  }
  return 'welcome';
}

/** A valid frame changed once or twice, in its structure or in its text; containers always unwatched. */
export function mutated(rng: Rng, frame: Record<string, unknown>): string {
  let value = frame;
  for (let n = rng.int(1, 2); n > 0; n--) value = mutateValue(rng, value);
  let text = JSON.stringify(keepUnwatched(value));
  // Blown-up arrays can reach tens of MiB: built and sent in this process, they would stall the
  // hub's thread too. The size cap has cases of its own; past it, a text mutation stands in.
  if (text.length > EDGE_MAX_FRAME_BYTES) text = JSON.stringify(keepUnwatched(frame));
  return rng.bool(0.25) ? mutateText(rng, text) : text;
}
