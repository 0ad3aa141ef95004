/**
 * The exports of a CommonJS package imported on demand (`import('prom-client')`). Node gives them
 * both as named exports and as `default`; the production bundle (esbuild, scripts/build.mjs) gives
 * them as `default` only, so a named export read from the namespace is undefined there: `/metrics`
 * answered 500 on `npm start` while every test through tsx passed.
 */
export async function importCommonJs<T extends object>(load: () => Promise<T>): Promise<T> {
  const namespace = (await load()) as T & { default?: T };
  return namespace.default ?? namespace;
}
