import { expect } from 'vitest';
import type { HubClient } from '../../support/hub-harness';

/**
 * Requests under /api/v1 of a matrix hub: `request` as it is, `ok` the JSON body of an answer that must have
 * `status` (200 unless told), its body quoted when it has not.
 */
export function apiV1(client: () => HubClient): {
  request: (path: string, init?: RequestInit) => Promise<Response>;
  ok: <T>(path: string, init?: RequestInit, status?: number) => Promise<T>;
} {
  const request = (path: string, init?: RequestInit) => client().request(`/api/v1${path}`, init);
  const ok = async <T>(path: string, init?: RequestInit, status = 200): Promise<T> => {
    const response = await request(path, init);
    const text = await response.text();
    expect(response.status, `${path}: ${text}`).toBe(status);
    return JSON.parse(text) as T;
  };
  return { request, ok };
}
