/**
 * Tag list paging: the `Link: <…>; rel="next"` header is an opaque cursor that the client must follow
 * verbatim, on the registry's own origin only, a bounded number of times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeServer, type Handler, reply, startFakeServer } from '../../support/fixtures/fake-registry';
import { errorOf, hostileClient, timed } from './hostile-helpers';

/** Pages of `all` addressed by an opaque `cursor`; `link` writes the Link header for the next page. */
function pagedTags(all: string[], pageSize: number, link: (cursor: string) => string): Handler {
  return (_req, res, seen) => {
    const cursor = new URLSearchParams(seen.query).get('cursor');
    const start = cursor === null ? 0 : Number(Buffer.from(cursor, 'base64url').toString());
    if (Number.isNaN(start)) return reply(res, 405, {});
    const end = start + pageSize;
    const headers: Record<string, string> =
      end < all.length ? { link: link(Buffer.from(String(end)).toString('base64url')) } : {};
    reply(res, 200, { name: 'app', tags: all.slice(start, end) }, headers);
  };
}

describe('tag list paging', () => {
  let registry: FakeServer;
  let other: FakeServer;

  beforeAll(async () => {
    registry = await startFakeServer();
    other = await startFakeServer((_req, res) => reply(res, 200, { tags: ['stolen'] }), '127.0.0.2');
  });
  afterAll(async () => {
    await Promise.all([registry.close(), other.close()]);
  });

  it('follows the Link cursor verbatim and never rebuilds last= itself', async () => {
    registry.reset((_req, res, seen) => {
      if (seen.query === '')
        return reply(
          res,
          200,
          { tags: ['a', 'b'] },
          { link: '</v2/app/tags/list?n=2&last=b&opaque=token123>; rel="next"' },
        );
      // Like the registry that answers 405 to rebuilt cursors: only the exact cursor it gave is good.
      if (seen.query === 'n=2&last=b&opaque=token123') return reply(res, 200, { tags: ['c'] });
      reply(res, 405, {});
    });
    expect(await hostileClient(registry.host).client.listTags('app')).toEqual(['a', 'b', 'c']);
    expect(registry.requests.map((r) => r.query)).toEqual(['', 'n=2&last=b&opaque=token123']);
  });

  it('follows absolute Links on its own origin, and picks rel="next" among several Link values', async () => {
    const all = ['1', '2', '3', '4', '5'];
    registry.reset(pagedTags(all, 2, (c) => `<${registry.origin}/v2/app/tags/list?cursor=${c}>; rel="next"`));
    expect(await hostileClient(registry.host).client.listTags('app')).toEqual(all);
    registry.reset(
      pagedTags(
        all,
        2,
        (c) => `</v2/app/tags/list?cursor=bogus>; rel="prev", </v2/app/tags/list?cursor=${c}>; rel=next`,
      ),
    );
    expect(await hostileClient(registry.host).client.listTags('app')).toEqual(all);
    expect(registry.requests).toHaveLength(3);
  });

  it('stops at a Link to another origin and sends it nothing', async () => {
    for (const target of [
      `${other.origin}/v2/app/tags/list?cursor=x`,
      `http://127.0.0.1:${other.port}/v2/app/tags/list`,
    ]) {
      registry.reset((_req, res) => reply(res, 200, { tags: ['a'] }, { link: `<${target}>; rel="next"` }));
      expect(await hostileClient(registry.host).client.listTags('app')).toEqual(['a']);
      expect(registry.requests).toHaveLength(1);
    }
    expect(other.connections).toBe(0);
  });

  it('a Link loop (a page naming itself) is a protocol error after two requests, not 2,000 pages of repeats', async () => {
    registry.reset((_req, res) =>
      reply(res, 200, { tags: ['a'] }, { link: '</v2/app/tags/list?cursor=same>; rel="next"' }),
    );
    expect((await errorOf(hostileClient(registry.host).client.listTags('app'))).kind).toBe('protocol');
    expect(registry.requests).toHaveLength(2);
  });

  it('a Link loop back to an earlier page (A → B → A) is a protocol error too', async () => {
    registry.reset((req, res) => {
      const onB = (req.url ?? '').includes('cursor=b');
      reply(
        res,
        200,
        { tags: [onB ? 'b' : 'a'] },
        { link: onB ? '</v2/app/tags/list?cursor=a>; rel="next"' : '</v2/app/tags/list?cursor=b>; rel="next"' },
      );
    });
    expect((await errorOf(hostileClient(registry.host).client.listTags('app'))).kind).toBe('protocol');
    expect(registry.requests.length).toBeLessThanOrEqual(3);
  });

  it('lists 100,000 tags served in pages of 1,000', async () => {
    const all = Array.from({ length: 100_000 }, (_, i) => `1.${Math.floor(i / 1000)}.${i % 1000}`);
    registry.reset(pagedTags(all, 1_000, (c) => `</v2/app/tags/list?n=1000&cursor=${c}>; rel="next"`));
    const { value: tags, ms } = await timed(() =>
      hostileClient(registry.host, { timeoutMs: 5_000 }).client.listTags('app'),
    );
    expect(tags).toEqual(all);
    expect(registry.requests).toHaveLength(100);
    expect(ms).toBeLessThan(10_000);
    console.info(`[figure] 100,000 tags in 100 pages of 1,000: ${ms.toFixed(0)} ms`);
  });

  it('respects maxTags, asking no further page once it is reached', async () => {
    const all = Array.from({ length: 10_000 }, (_, i) => `t${i}`);
    registry.reset(pagedTags(all, 1_000, (c) => `</v2/app/tags/list?cursor=${c}>; rel="next"`));
    expect(await hostileClient(registry.host).client.listTags('app', { maxTags: 2_500 })).toEqual(all.slice(0, 2_500));
    expect(registry.requests).toHaveLength(3);
  });

  it('reads "tags": null or no tags as an empty list, and a malformed list as protocol', async () => {
    // `{}` and `"tags": null` (distribution after every tag is deleted) read as no tags.
    for (const body of [{ name: 'app', tags: null }, { name: 'app' }]) {
      registry.reset((_req, res) => reply(res, 200, body));
      expect(await hostileClient(registry.host).client.listTags('app')).toEqual([]);
    }
    // An array is not a tag list, whatever valibot's object schema would let through.
    for (const body of ['not json', '{"tags":[1,2]}', '{"tags":"a,b"}', 'null', '"tags"', '[]']) {
      registry.reset((_req, res) => reply(res, 200, body));
      expect({ body, kind: (await errorOf(hostileClient(registry.host).client.listTags('app'))).kind }).toEqual({
        body,
        kind: 'protocol',
      });
    }
  });

  it('regression: a cursor containing a comma is dropped, silently truncating the tag list', async () => {
    // Input: Link: </v2/app/tags/list?cursor=a,b>; rel="next" (commas are legal in a URI query).
    // Observed: nextPageUrl splits the header on ',' first, finds no next link, and listTags returns
    // page 1 only, without an error. Expected: the second page is requested with cursor=a,b verbatim.
    registry.reset((_req, res, seen) => {
      if (seen.query === '')
        return reply(res, 200, { tags: ['a'] }, { link: '</v2/app/tags/list?cursor=a,b>; rel="next"' });
      reply(res, 200, { tags: ['b'] });
    });
    expect(await hostileClient(registry.host).client.listTags('app')).toEqual(['a', 'b']);
    expect(registry.requests.map((r) => r.query)).toEqual(['', 'cursor=a,b']);
  });

  it('regression: an unparsable Link URL escapes as a raw TypeError instead of protocol', async () => {
    // Input: Link: <http://[::1>; rel="next". Observed: `new URL` in nextPageUrl throws TypeError
    // "Invalid URL" out of listTags. Expected: RegistryError protocol (or stopping at page 1).
    registry.reset((_req, res) => reply(res, 200, { tags: ['a'] }, { link: '<http://[::1>; rel="next"' }));
    expect((await errorOf(hostileClient(registry.host).client.listTags('app'))).kind).toBe('protocol');
  });
});
