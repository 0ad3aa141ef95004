import * as v from 'valibot';

/**
 * The web UI as scripts/build-ui.mjs leaves it (dist/ui/ui-bundle.json): every file of the page
 * with its body gzip-compressed and as is, both base64. The hub core never reads files: the
 * runtime entry hands this over (Node reads the file; the Workers bundle has it built in).
 */
const AssetSchema = v.object({
  /** `/assets/app-<hash>.js`; the page itself is `/index.html`. */
  path: v.pipe(v.string(), v.startsWith('/')),
  contentType: v.string(),
  /** Hex digest of the identity body: the ETag, and the name's hash for hashed assets. */
  hash: v.pipe(v.string(), v.regex(/^[0-9a-f]{8,64}$/)),
  identity: v.string(),
  gzip: v.string(),
});

export const UiBundleSchema = v.object({
  format: v.literal(1),
  /** The page's Content-Security-Policy, written next to the page it fits. */
  csp: v.string(),
  assets: v.array(AssetSchema),
  /** gzip bytes of the JavaScript and CSS the page loads first (the budget of docs/ui.md). */
  firstLoadGzipBytes: v.object({ js: v.number(), css: v.number() }),
});
export type UiBundle = v.InferOutput<typeof UiBundleSchema>;

/** No UI to serve, and why: the page then answers 503 with that text instead of a 404. */
export interface UiUnavailable {
  unavailable: string;
}

export type UiSource = UiBundle | UiUnavailable;

export const INDEX_PATH = '/index.html';
/** The API reference page (scripts/build-ui.mjs, DOCS_PAGE_PATH), served at /api/v1/docs. */
export const DOCS_PAGE_PATH = '/docs.html';
