/**
 * Fuzz of the icon proxy (docs/icons.md): hostile providers and slugs in the path, and hostile
 * SVGs from the upstream set, against a real hub in memory and on a socket and a fixture icon
 * server on loopback.
 *
 * Invariants: never a 5xx but the documented 502 of a refused upstream answer, every error an
 * http-interface §2.15 JSON body; the status follows an independent oracle (unknown set 404, bad
 * slug 400); no upstream request leaves its set's folder; and an SVG served holds no script, no
 * event handler, no foreign content and no reference outside the document, whatever the set sent.
 * FUZZ_SEED=<seed> replays a run.
 */
import * as v from 'valibot';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../shared/schemas/error-body';
import { describeHubMatrix } from '../support/hub-harness';
import { type IconServer, startIconServer } from '../support/icon-server';
import { genPathSegment, preview, type Rng, rngFor, seedFromEnv, seedHex } from './generators';

const SEED = seedFromEnv(process.env['FUZZ_SEED']);
const SEED_TAG = `seed ${seedHex(SEED)}`;
const PROVIDERS = ['selfhst', 'simple-icons', 'dashboard-icons'];
const SLUG = /^[a-z0-9]+(?:[-_.][a-z0-9]+)*$/;
const UPSTREAM_PATH =
  /^\/(selfhst\/(svg|png)|dashboard-icons\/(svg|png)|simple-icons\/icons)\/[a-z0-9]+(?:[-_.][a-z0-9]+)*\.(svg|png)$/;

/** Pieces of SVG an attacker would send, shuffled into documents around one harmless shape. */
const HOSTILE_PIECES = [
  '<script>alert(1)</script>',
  '<script xlink:href="https://evil.test/x.js"/>',
  '<SCRIPT>alert(1)</SCRIPT>',
  '<foreignObject><div xmlns="http://www.w3.org/1999/xhtml" onclick="alert(1)">x</div></foreignObject>',
  '<iframe src="https://evil.test"/>',
  '<style>@import "https://evil.test/a.css";</style>',
  '<style>.a{fill:url(https://evil.test/p)}</style>',
  '<style><![CDATA[.a{background:url(//evil.test)}]]></style>',
  '<style>.a{fill:u\\72l(https://evil.test)}</style>',
  '<a href="javascript:alert(1)"><rect width="1" height="1"/></a>',
  '<a xlink:href="jav&#x61;script:alert(1)"><circle r="1"/></a>',
  '<use href="https://evil.test/s.svg#a"/>',
  '<use xlink:href="data:image/svg+xml,&lt;svg onload=alert(1)&gt;"/>',
  '<image href="https://evil.test/i.png"/>',
  '<g onload="alert(1)" onmouseover="alert(1)"><path d="M0 0"/></g>',
  '<rect style="background:url(https://evil.test)" width="1"/>',
  '<rect fill="url(https://evil.test#a)" width="1"/>',
  '<animate attributeName="href" values="javascript:alert(1)"/>',
  '<set attributeName="onclick" to="alert(1)"/>',
  '<handler type="text/javascript">alert(1)</handler>',
  '<text>&lt;script&gt;alert(1)&lt;/script&gt;</text>',
  '<!-- <script>alert(1)</script> -->',
  '<![CDATA[<script>alert(1)</script>]]>',
  '<svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(1)</svg:script>',
  '<g filter="url(&quot;https://evil.test&quot;)"/>',
];

function hostileSvg(rng: Rng): string {
  const pieces = rng.sample(HOSTILE_PIECES, rng.int(1, 6));
  const root = rng.pick([
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">',
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)">',
    '<svg>',
  ]);
  const prolog = rng.pick(['', '<?xml version="1.0"?>', '<!DOCTYPE svg [<!ENTITY e SYSTEM "file:///etc/passwd">]>']);
  return `${prolog}${root}${pieces.join('')}<path id="safe" d="M0 0h1v1z"/>${rng.bool(0.1) ? '' : '</svg>'}`;
}

/** What must never be in a served SVG, after entity decoding by a browser. */
function unsafeIn(svg: string): string | undefined {
  const decoded = svg
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
  const markup = svg.replace(/>[^<]*</g, '><');
  if (/<(script|foreignObject|iframe|image|animate|set|handler|a|svg:script)[\s/>]/i.test(markup)) return 'element';
  if (/\son[a-z]+\s*=/i.test(markup)) return 'event handler';
  if (/(href|src)="(?!#)/i.test(markup)) return 'external reference';
  if (/url\(\s*['"]?(?!#)/i.test(decoded.replace(/<text[^>]*>[^<]*<\/text>/g, ''))) return 'url()';
  if (/@import|javascript:|evil\.test|passwd|\\/i.test(markup.replace(/<text[^>]*>[^<]*<\/text>/g, '')))
    return 'reference';
  return undefined;
}

const env: Record<string, string> = {};
let icons: IconServer;

beforeAll(async () => {
  icons = await startIconServer();
  env.DD_ICONS_SELFHST_URL = `${icons.url}/selfhst`;
  env.DD_ICONS_SIMPLEICONS_URL = `${icons.url}/simple-icons`;
  env.DD_ICONS_DASHBOARDICONS_URL = `${icons.url}/dashboard-icons`;
});

afterAll(async () => {
  await icons?.close();
});

describeHubMatrix(
  `icons fuzz (${SEED_TAG})`,
  (client) => {
    it('hostile providers and slugs: 404 for an unknown set, 400 for a bad slug, never a request outside the set', async () => {
      const rng = rngFor(SEED, `icons-paths-${client().mode}`);
      const segment = () =>
        rng.bool(0.3)
          ? rng.pick([...PROVIDERS, 'SELFHST', 'selfhst.', ''])
          : rng.bool(0.5)
            ? genPathSegment(rng)
            : 'x-1';
      for (let i = 0; i < 300; i++) {
        const provider = rng.bool(0.7) ? rng.pick(PROVIDERS) : segment();
        const slug = rng.bool(0.2) ? rng.pick(['nginx', 'a.b-c_d', 'x.svg', 'x.png', 'a..b']) : segment();
        const path = `/api/v1/icons/${provider}/${slug}`;
        const response = await client().request(path);
        const text = await response.text();
        const context = `[${SEED_TAG} #${i}] GET ${preview(path, 200)} -> ${response.status} ${preview(text)}`;
        expect(response.status, context).toBeLessThan(500);
        expect(response.status, context).not.toBe(200);
        const body = v.safeParse(ErrorBodySchema, JSON.parse(text));
        expect(body.success, context).toBe(true);
        // The oracle, from the URL the hub actually received (fetch normalises dot segments).
        const received = new URL(path, 'http://hub').pathname.split('/').slice(4);
        if (received.length !== 2) continue;
        let decoded: string[];
        try {
          decoded = received.map((part) => decodeURIComponent(part));
        } catch {
          continue;
        }
        const [gotProvider, gotSlug] = decoded as [string, string];
        // An empty segment matches no route: 404 too.
        if (!PROVIDERS.includes(gotProvider) || gotSlug === '') expect(response.status, context).toBe(404);
        else if (!SLUG.test(gotSlug) || gotSlug.length > 100) expect(response.status, context).toBe(400);
        else expect(response.status, context).toBe(404);
      }
      for (const requested of icons.requests) expect(requested).toMatch(UPSTREAM_PATH);
    });

    it('hostile SVGs from the set: each is served sanitised or refused with 502, never passed through', async () => {
      const rng = rngFor(SEED, `icons-svgs-${client().mode}`);
      let served = 0;
      for (let i = 0; i < 150; i++) {
        const name = `fuzz-${client().mode}-${i}`;
        const svg = hostileSvg(rng);
        icons.serve(`/selfhst/svg/${name}.svg`, { contentType: 'image/svg+xml', body: svg });
        const response = await client().request(`/api/v1/icons/selfhst/${name}.svg`);
        const text = await response.text();
        const context = `[${SEED_TAG} #${i}] ${preview(svg, 600)} -> ${response.status} ${preview(text, 600)}`;
        if (response.status === 502) {
          expect(v.safeParse(ErrorBodySchema, JSON.parse(text)).success, context).toBe(true);
          continue;
        }
        expect(response.status, context).toBe(200);
        expect(unsafeIn(text), context).toBeUndefined();
        expect(text, context).toContain('id="safe"');
        served++;
      }
      expect(served).toBeGreaterThan(50);
    });
  },
  env,
);
