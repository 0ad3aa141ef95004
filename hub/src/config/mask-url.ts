import { REDACTED } from '../../../shared/redact';

/**
 * A URL with only its scheme and host (port included) shown. `***@` stands for a user and password,
 * `/***` for a path, `?***` for a query or fragment. Shown as known not secret: a redis URL's
 * database number, a unix socket's path. Text that is no URL is masked whole.
 */
export function maskUrl(text: string): string {
  let parsed: URL;
  try {
    parsed = new URL(text.trim());
  } catch {
    return REDACTED;
  }
  const unix = parsed.protocol === 'unix:';
  if (!unix && parsed.host === '') return REDACTED;
  const userinfo = parsed.username !== '' || parsed.password !== '' ? `${REDACTED}@` : '';
  const path = parsed.pathname;
  const known = unix || (/^rediss?:$/.test(parsed.protocol) && /^\/\d{1,2}$/.test(path));
  const pathHidden = !known && path !== '' && path !== '/';
  const query = parsed.search !== '' || parsed.hash !== '';
  const rest = pathHidden ? `/${REDACTED}` : query ? `${known ? path : '/'}?${REDACTED}` : known ? path : '';
  return `${parsed.protocol}//${userinfo}${parsed.host}${rest}`;
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s,;"'<>]+/gi;

/** Every URL in a text masked as maskUrl does, the rest kept. */
export function maskUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (found) => maskUrl(found));
}
