/**
 * The request helpers every HTTP fuzz of the hub shares (./container-hub.ts and ../http-fuzz.test.ts): one
 * time-limited request read into a `Seen`, a schema check with a readable failure, and the stored state a
 * refused request must leave alone.
 */
import * as v from 'valibot';
import { expect } from 'vitest';
import type { HubClient } from '../../support/hub-harness';
import { withTimeout } from '../../support/with-timeout';
import { preview } from '../generators';

export interface Seen {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

const REQUEST_TIMEOUT_MS = 10_000;

/** Every request of the fuzz answers within REQUEST_TIMEOUT_MS, or the hub hung. */
export const answered = <T>(promise: Promise<T>, label: string, ms = REQUEST_TIMEOUT_MS): Promise<T> =>
  withTimeout(promise, label, ms);

/** A response read whole: its status, headers, text and the JSON in it (undefined when there is none). */
export async function readSeen(response: Response, label: string): Promise<Seen> {
  const text = await answered(response.text(), `${label} (body)`);
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export async function call(
  hub: HubClient,
  method: string,
  path: string,
  body?: { bytes: Uint8Array<ArrayBuffer>; contentType: string | undefined },
  extraHeaders: Record<string, string> = {},
): Promise<Seen> {
  const headers: Record<string, string> = { ...extraHeaders };
  if (body?.contentType !== undefined) headers['content-type'] = body.contentType;
  const init: RequestInit = { method, headers, ...(body && { body: body.bytes }) };
  const label = `${method} ${path.slice(0, 200)}`;
  return readSeen(await answered(hub.request(path, init), label), label);
}

export function expectSchema(schema: v.GenericSchema, value: unknown, context: string): void {
  const result = v.safeParse(schema, value);
  const issues = result.success
    ? ''
    : result.issues.map((issue) => `${v.getDotPath(issue) ?? ''}: ${issue.message}`).join('; ');
  expect(
    result.success,
    `${context}\n  body does not match its schema: ${issues} ${preview(JSON.stringify(value) ?? '', 300)}`,
  ).toBe(true);
}

/** Every key the driver holds, with its value: what "a rejected request changes nothing" is checked against. */
export async function storedState(hub: HubClient): Promise<Record<string, unknown>> {
  const storage = hub.hub.parts.storage;
  const stored: Record<string, unknown> = {};
  // Not the stored schedules: they move with the clock (a watcher's first cycle, hourly jobs), not with requests.
  for (const key of (await storage.getKeys()).sort())
    if (!key.startsWith('schedule:')) stored[key] = await storage.getItem(key);
  return stored;
}

/** Memory mode takes the full batch; the socket a smaller prefix of the same sequence. */
export const budget = (hub: HubClient, memory: number, server: number): number =>
  hub.mode === 'memory' ? memory : server;
