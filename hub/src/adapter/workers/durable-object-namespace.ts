/** The part of a Durable Object namespace binding the hub's objects use (workers-types is not a dependency). */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

/** One hub per deployment: its state and streams all live in one object, whatever forwards to it. */
export const HUB_OBJECT_NAME = 'hub';

/** The object-to-object requests' origin: never resolved, the stub routes by object. */
export const INTERNAL_ORIGIN = 'https://internal.invalid';

/** A JSON POST to a named object; a non-2xx answer throws, naming the path. */
export async function postToObject(
  namespace: DurableObjectNamespaceLike,
  name: string,
  path: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  const response = await namespace.get(namespace.idFromName(name)).fetch(
    new Request(`${INTERNAL_ORIGIN}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...(signal && { signal }),
    }),
  );
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  return response.json();
}
