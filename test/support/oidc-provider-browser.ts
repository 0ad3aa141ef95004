import { Agent, fetch as undiciFetch } from 'undici';

interface StoredCookie {
  host: string;
  name: string;
  value: string;
  path: string;
  secure: boolean;
}

/** What the browser needs of a response, from undici or from Miniflare's dispatchFetch. */
export interface BrowserResponse {
  status: number;
  headers: { get(name: string): string | null; getSetCookie(): string[] };
  text(): Promise<string>;
  json(): Promise<unknown>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

type RequestOptions = { method: string; headers: Record<string, string>; body?: string; redirect: 'manual' };

/**
 * A browser reduced to what a sign-in needs: redirects followed by hand, a cookie jar that keeps
 * cookies per host (not per port, as browsers do), by path and Secure, and trust in one extra CA.
 * `direct` sends one origin's requests elsewhere than the network (a hub inside Miniflare).
 */
export class TestBrowser {
  private readonly cookies: StoredCookie[] = [];
  private readonly dispatcher: Agent;

  constructor(
    ca: string,
    private readonly direct?: {
      origin: string;
      fetch: (url: string, init: RequestOptions) => Promise<BrowserResponse>;
    },
  ) {
    this.dispatcher = new Agent({ connect: { ca } });
  }

  /** The cookies this browser would send to the URL, as a Cookie header value. */
  cookieHeader(url: string): string {
    const target = new URL(url);
    return this.cookies
      .filter((cookie) => cookie.host === target.hostname && target.pathname.startsWith(cookie.path))
      .filter((cookie) => !cookie.secure || target.protocol === 'https:')
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }

  cookie(url: string, name: string): string | undefined {
    const target = new URL(url);
    return this.cookies.find((cookie) => cookie.host === target.hostname && cookie.name === name)?.value;
  }

  /** One request, no redirect followed; Set-Cookie answers land in the jar. */
  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<BrowserResponse> {
    const headers: Record<string, string> = { ...init.headers };
    // Cookies a test adds by hand go along with the jar's.
    const cookie = [headers.cookie, this.cookieHeader(url)].filter(Boolean).join('; ');
    if (cookie) headers.cookie = cookie;
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const options: RequestOptions = {
      method: init.method ?? 'GET',
      headers,
      redirect: 'manual',
      ...(init.form && { body: new URLSearchParams(init.form).toString() }),
    };
    const response =
      this.direct && new URL(url).origin === this.direct.origin
        ? await this.direct.fetch(url, options)
        : await undiciFetch(url, { ...options, dispatcher: this.dispatcher });
    for (const line of response.headers.getSetCookie()) this.store(url, line);
    return response;
  }

  private store(url: string, line: string): void {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const equals = pair.indexOf('=');
    const name = pair.slice(0, equals);
    const value = pair.slice(equals + 1);
    const attribute = (key: string) =>
      attributes.find((part) => part.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1) ??
      (attributes.some((part) => part.toLowerCase() === key) ? '' : undefined);
    const path = attribute('path') || '/';
    const host = new URL(url).hostname;
    const index = this.cookies.findIndex(
      (cookie) => cookie.host === host && cookie.name === name && cookie.path === path,
    );
    if (index >= 0) this.cookies.splice(index, 1);
    const maxAge = attribute('max-age');
    const expires = attribute('expires');
    const expired =
      (maxAge !== undefined && Number(maxAge) <= 0) || (expires !== undefined && Date.parse(expires) <= Date.now());
    if (!expired) this.cookies.push({ host, name, value, path, secure: attribute('secure') !== undefined });
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

const decodeHtml = (text: string) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

/** The first form of a page: its action and the fields a person would send (hidden ones as given). */
function readForm(
  html: string,
  typed: Record<string, string>,
): { action: string; fields: Record<string, string> } | undefined {
  const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/.exec(html);
  if (!form) return undefined;
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? '').matchAll(/<input([^>]*)>/g)) {
    const attributes = input[1] ?? '';
    const name = /name="([^"]*)"/.exec(attributes)?.[1];
    if (!name) continue;
    fields[name] = typed[name] ?? decodeHtml(/value="([^"]*)"/.exec(attributes)?.[1] ?? '');
  }
  return { action: decodeHtml(form[1] ?? ''), fields };
}

/**
 * Walks a browser from the hub's redirect through the provider's login and consent pages, as a
 * person would, and stops at the hub callback without requesting it: the caller decides what to do
 * with the code and state there. `typed` fills the form fields a person types.
 */
export async function walkToCallback(
  browser: TestBrowser,
  startUrl: string,
  callbackPrefix: string,
  typed: Record<string, string>,
): Promise<string> {
  let url = startUrl;
  let form: Record<string, string> | undefined;
  for (let step = 0; step < 20; step++) {
    if (url.startsWith(callbackPrefix)) return url;
    const response = await browser.request(url, form ? { method: 'POST', form } : {});
    form = undefined;
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.arrayBuffer();
      url = new URL(location, url).href;
      continue;
    }
    const html = await response.text();
    const next = response.status === 200 ? readForm(html, typed) : undefined;
    if (!next) throw new Error(`unexpected answer ${response.status} at ${url}: ${html.slice(0, 400)}`);
    url = new URL(next.action, url).href;
    form = next.fields;
  }
  throw new Error(`no callback after 20 steps (last URL ${url})`);
}
