import type { Context } from 'hono';
import * as v from 'valibot';
import type { Publish } from '../events/event-bus';
import { HttpError } from '../http/http-error';
import type { HubEnv } from '../http/hub-env';
import type { RouteGroup } from '../http/route-group';
import type { Preferences, PreferencesStore } from '../store/preferences-store';

/** A user's UI preferences: a small flat-ish JSON object, at most this many bytes serialised. */
export const MAX_PREFERENCES_BYTES = 16 * 1024;
const PreferencesSchema = v.record(v.pipe(v.string(), v.maxLength(100)), v.unknown());

/** The preferences routes read and write the users' preferences store, and tell the UI streams of a change. */
export interface PreferencesRoutesDeps {
  preferences: PreferencesStore;
  publish: Publish;
}

function usernameOf(c: Context<HubEnv>): string {
  const principal = c.get('principal');
  if (principal.kind !== 'session')
    throw new HttpError(403, 'Preferences belong to a signed-in user; anonymous mode has none');
  return principal.username;
}

/** GET/PATCH /api/v1/preferences (http-interface §4.12): session-only; PATCH merges top-level keys, null removes one. */
export function registerPreferencesRoutes(api: RouteGroup, deps: PreferencesRoutesDeps): void {
  const { preferences } = deps;
  api.add(
    {
      method: 'get',
      path: '/preferences',
      access: 'session',
      tag: 'auth',
      summary: 'The signed-in user preferences',
      response: PreferencesSchema,
    },
    async (c) => c.json(await preferences.get(usernameOf(c))),
  );
  api.add(
    {
      method: 'patch',
      path: '/preferences',
      access: 'session',
      tag: 'auth',
      summary: 'Merge into the signed-in user preferences (null removes a key)',
      body: PreferencesSchema,
      response: PreferencesSchema,
      statuses: { 413: 'Preferences larger than 16 KiB' },
    },
    async (c, { body }) => {
      const username = usernameOf(c);
      const next: Preferences = { ...(await preferences.get(username)) };
      for (const [key, value] of Object.entries(body)) {
        if (value === null) delete next[key];
        else next[key] = value;
      }
      if (new TextEncoder().encode(JSON.stringify(next)).length > MAX_PREFERENCES_BYTES) {
        throw new HttpError(413, `Preferences may hold at most ${MAX_PREFERENCES_BYTES} bytes`, {
          maxBytes: MAX_PREFERENCES_BYTES,
        });
      }
      await preferences.put(username, next);
      // http-interface §6.1: an empty payload, so the stream names no user and shows no preference;
      // every open UI refetches its own (the user's other tabs and browsers are the ones it is for).
      deps.publish('dd:preferences-updated', {});
      return c.json(next);
    },
  );
}
