import { rm } from 'node:fs/promises';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { createStorage } from 'unstorage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIconCache } from '../../../hub/src/icons/icon-cache';
import { createIconService, type IconResult } from '../../../hub/src/icons/icon-service';
import { createLogRing } from '../../../shared/logging/log-ring';
import { createLogger, silentSink } from '../../../shared/logging/logger';
import { describeRuntimeMatrix, expectJsonError } from '../../support/hub-harness';
import { type IconServer, startIconServer, TINY_PNG } from '../../support/icon-server';
import { createTestCertificates, type TestCertificates } from '../../support/oidc-provider';

// Issue 33, item 7: the icon set's URL redirecting to another address (http://127.0.0.1:…) was
// fetched. Redirects are followed by hand, at most 3, to the configured base's host only, and never
// from https down to http (docs/icons.md "Redirects").

const CLEAN_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M0 0h24v24H0z"/></svg>';
const svg = { contentType: 'image/svg+xml', body: CLEAN_SVG };
const redirect = (location: string, status = 302) => ({ status, body: '', headers: { location } });

const env: Record<string, string> = { DD_ICONS_TIMEOUT: '2' };
/** The configured set, and another server on loopback that must never be asked. */
let configured: IconServer;
let elsewhere: IconServer;

beforeAll(async () => {
  configured = await startIconServer();
  elsewhere = await startIconServer();
  env.DD_ICONS_SELFHST_URL = `${configured.url}/selfhst`;
  env.DD_ICONS_SIMPLEICONS_URL = `${configured.url}/simple-icons`;
  env.DD_ICONS_DASHBOARDICONS_URL = `${configured.url}/dashboard-icons`;
  elsewhere.serve('/selfhst/svg/away.svg', svg);
  elsewhere.serve('/selfhst/svg/fallback.svg', svg);
  configured.serve('/selfhst/svg/away.svg', redirect(`${elsewhere.url}/selfhst/svg/away.svg`));
  // The same address by another name is another host too.
  configured.serve('/selfhst/svg/renamed.svg', redirect(`${configured.url.replace('127.0.0.1', 'localhost')}/x.svg`));
  configured.serve('/selfhst/svg/fallback.svg', redirect(`${elsewhere.url}/selfhst/svg/fallback.svg`, 307));
  configured.serve('/selfhst/png/fallback.png', { contentType: 'image/png', body: TINY_PNG });
  // Three hops within the set: absolute, root-relative, relative.
  configured.serve('/selfhst/svg/moved.svg', redirect(`${configured.url}/selfhst/svg/moved-1.svg`, 301));
  configured.serve('/selfhst/svg/moved-1.svg', redirect('/selfhst/svg/moved-2.svg', 308));
  configured.serve('/selfhst/svg/moved-2.svg', redirect('moved-3.svg', 303));
  configured.serve('/selfhst/svg/moved-3.svg', svg);
  for (let hop = 0; hop < 4; hop++) {
    configured.serve(`/selfhst/svg/loop-${hop}.svg`, redirect(`loop-${hop + 1}.svg`));
  }
  configured.serve('/selfhst/svg/loop-4.svg', svg);
});

afterAll(async () => {
  await configured?.close();
  await elsewhere?.close();
});

describeRuntimeMatrix(
  'icon set redirects',
  (client) => {
    it('refuses a redirect to another host with 502 and its reason; that host sees no request', async () => {
      for (const slug of ['away.svg', 'renamed.svg']) {
        const body = await expectJsonError(await client().request(`/api/v1/icons/selfhst/${slug}`), 502);
        expect(String(body.details?.reason), slug).toMatch(/redirect to another host refused/);
      }
      expect(elsewhere.requests).toEqual([]);
      expect(configured.requests).not.toContain('/x.svg');
    });

    it('falls back to the PNG when the SVG redirects away, as for any refused format', async () => {
      const response = await client().request('/api/v1/icons/selfhst/fallback');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(TINY_PNG);
      expect(elsewhere.requests).toEqual([]);
    });

    it('follows three redirects within the set, and refuses a fourth', async () => {
      const moved = await client().request('/api/v1/icons/selfhst/moved.svg');
      expect(moved.status).toBe(200);
      expect(await moved.text()).toContain('<path d="M0 0h24v24H0z"/>');
      const body = await expectJsonError(await client().request('/api/v1/icons/selfhst/loop-0.svg'), 502);
      expect(body.details?.reason).toBe('more than 3 redirects');
      expect(configured.requests).toContain('/selfhst/svg/loop-3.svg');
      expect(configured.requests).not.toContain('/selfhst/svg/loop-4.svg');
    });
  },
  env,
);

describe('icon set redirects over https', () => {
  const logger = createLogger({ level: 'fatal', ring: createLogRing(), sink: silentSink });
  let certificates: TestCertificates;
  let server: Server;
  let base: string;
  /** Connections that spoke something other than TLS to the https set: a plain http request. */
  let plainRequests = 0;

  beforeAll(async () => {
    certificates = await createTestCertificates();
    server = createHttpsServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
      const path = new URL(req.url ?? '/', 'https://set').pathname;
      const down = `http://${req.headers.host}/selfhst/svg/clean.svg`;
      const target = { '/selfhst/svg/down.svg': down, '/selfhst/svg/up.svg': '/selfhst/svg/clean.svg' }[path];
      if (target) res.writeHead(302, { location: target }).end();
      else if (path === '/selfhst/svg/clean.svg')
        res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(CLEAN_SVG);
      else res.writeHead(404).end();
    });
    server.on('tlsClientError', () => plainRequests++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}/selfhst`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    if (certificates) await rm(certificates.dir, { recursive: true, force: true });
  });

  const service = () => {
    // The real fetch, trusting the test CA.
    const dispatcher = new Agent({ connect: { ca: certificates.ca } });
    return createIconService({
      cache: createIconCache(createStorage(), logger),
      bases: { selfhst: base, 'simple-icons': base, 'dashboard-icons': base },
      timeoutMs: 2000,
      internetless: () => false,
      fetch: ((url: string, init: RequestInit) =>
        undiciFetch(url, { ...(init as object), dispatcher })) as unknown as typeof fetch,
      now: Date.now,
      logger,
    });
  };
  const reason = (result: IconResult) => ('failure' in result ? result.failure : { kind: 'served' });

  it('follows a redirect within the https set, and refuses one down to http before sending it', async () => {
    expect(reason(await service().icon('selfhst', 'up.svg'))).toEqual({ kind: 'served' });
    expect(reason(await service().icon('selfhst', 'down.svg'))).toEqual({
      kind: 'upstream',
      reason: 'redirect from https to http refused',
    });
    expect(plainRequests).toBe(0);
  });
});
