/**
 * The two JSON readers the integration tests wrote again in each file: one asserts the status it
 * expects (the rollout tests), one only refuses a failed answer (the end-to-end tests).
 */
import { expect } from 'vitest';

/** A hub's request: fetch to a process, an in-process hub's request; looked up on each call. */
export type HubRequest = (path: string, init?: RequestInit) => Promise<Response>;

/** Reads JSON answered with `status` (200 unless told), asserted; a failure names the path and the body. */
export function expectJson(request: HubRequest) {
  return async function json<T>(path: string, init?: RequestInit, status = 200): Promise<T> {
    const response = await request(path, init);
    const text = await response.text();
    expect(response.status, `${path}: ${text}`).toBe(status);
    return JSON.parse(text) as T;
  };
}

/** Reads JSON of a 2xx answer; any other throws with the method, path, status and body. */
export function okJson(request: HubRequest) {
  return async function json<T>(path: string, init?: RequestInit): Promise<T> {
    const response = await request(path, init);
    const text = await response.text();
    if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
}
