// biome-ignore-all lint/suspicious/noTemplateCurlyInString: link templates use the ${name} syntax in plain strings on purpose
import { describe, expect, it } from 'vitest';
import { LINK_MAX_LENGTH, linkVersionFromTag, renderLinkTemplate } from './link-template';

const TRAEFIK = 'https://github.com/traefik/traefik/releases/tag/v${major}.${minor}.${patch}';

describe('linkVersionFromTag', () => {
  it.each([
    ['v3.1.2', { raw: 'v3.1.2', major: '3', minor: '1', patch: '2' }],
    ['1.2.3-alpine', { raw: '1.2.3-alpine', major: '1', minor: '2', patch: '3', prerelease: 'alpine' }],
    ['16-alpine', { raw: '16-alpine', major: '16', prerelease: 'alpine' }],
    ['2024.01.05', { raw: '2024.01.05', major: '2024', minor: '01', patch: '05' }],
    ['1.2', { raw: '1.2', major: '1', minor: '2' }],
    ['latest', { raw: 'latest' }],
    ['1.2.3.4', { raw: '1.2.3.4' }],
    ['2.5.0p13', { raw: '2.5.0p13' }],
  ])('splits %s', (tag, expected) => {
    expect(linkVersionFromTag(tag)).toEqual(expected);
  });
});

describe('renderLinkTemplate', () => {
  it('renders the WUD-style release link', () => {
    expect(renderLinkTemplate(TRAEFIK, linkVersionFromTag('v3.1.2'))).toBe(
      'https://github.com/traefik/traefik/releases/tag/v3.1.2',
    );
  });

  it('renders raw and prerelease, and tolerates spaces inside the braces', () => {
    const version = linkVersionFromTag('1.2.3-rc.1');
    expect(renderLinkTemplate('https://example.com/r/${raw}?pre=${ prerelease }', version)).toBe(
      'https://example.com/r/1.2.3-rc.1?pre=rc.1',
    );
  });

  it('renders a known variable without a value as empty', () => {
    expect(renderLinkTemplate('https://example.com/v${major}.${minor}.${patch}', linkVersionFromTag('1.2'))).toBe(
      'https://example.com/v1.2.',
    );
  });

  it('keeps an unknown name literally, so a typo shows', () => {
    expect(renderLinkTemplate('https://example.com/${mayor}', linkVersionFromTag('1.2.3'))).toBe(
      'https://example.com/$%7Bmayor%7D',
    );
  });

  it.each([
    ['constructor'],
    ['__proto__'],
    ['toString'],
    ['hasOwnProperty'],
    ['valueOf'],
    ['raw.constructor'],
    ['raw.length'],
    ['this'],
    ['1+1'],
  ])('reaches nothing through ${%s}', (name) => {
    const link = renderLinkTemplate(`https://example.com/x/\${${name}}`, linkVersionFromTag('1.2.3'));
    expect(link).toBe(`https://example.com/x/$%7B${encodeURI(name)}%7D`);
    expect(link).not.toMatch(/function|object|\[native|1\.2\.3|^https:\/\/example\.com\/x\/2$/);
  });

  it('evaluates nothing: expressions stay text, and one pass never rescans what it substituted', () => {
    const link = renderLinkTemplate(
      'https://example.com/${${raw}}/${`x`}/${process.env.HOME}',
      linkVersionFromTag('1.2.3'),
    );
    expect(link).toBe('https://example.com/$%7B1.2.3%7D/$%7B%60x%60%7D/$%7Bprocess.env.HOME%7D');
    expect(renderLinkTemplate('https://example.com/${raw}', { raw: '${major}', major: '9' })).toBe(
      'https://example.com/%24%7Bmajor%7D',
    );
  });

  it('percent-encodes values so a tag cannot add a path, query, fragment or host', () => {
    const hostile = { raw: '../../evil?x=1#frag' };
    expect(renderLinkTemplate('https://example.com/tags/${raw}', hostile)).toBe(
      'https://example.com/tags/..%2F..%2Fevil%3Fx%3D1%23frag',
    );
    expect(renderLinkTemplate('https://example.com${raw}', { raw: '@evil.example' })).toBeUndefined();
    expect(renderLinkTemplate('https://${raw}', { raw: 'evil.example/phish' })).toBeUndefined();
  });

  it.each([
    ['javascript:', 'javascript:alert(1)//${raw}'],
    ['JavaScript: in capitals', 'JavaScript:alert(document.cookie)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['file:', 'file:///etc/passwd'],
    ['a scheme made by a variable', '${raw}:alert(1)'],
    ['a relative link', '/releases/${raw}'],
    ['credentials in the link', 'https://github.com@evil.example/${raw}'],
    ['no template', ''],
  ])('gives no link for %s', (_why, template) => {
    expect(renderLinkTemplate(template, { raw: 'javascript' })).toBeUndefined();
  });

  it('gives no link without a template', () => {
    expect(renderLinkTemplate(undefined, { raw: '1.2.3' })).toBeUndefined();
  });

  it('caps the length of the template and of the link', () => {
    const path = 'a'.repeat(LINK_MAX_LENGTH);
    expect(renderLinkTemplate(`https://example.com/${path}`, { raw: '1' })).toBeUndefined();
    const nearlyFull = `https://example.com/${'a'.repeat(LINK_MAX_LENGTH - 40)}/\${raw}`;
    expect(renderLinkTemplate(nearlyFull, { raw: 'b'.repeat(100) })).toBeUndefined();
    expect(renderLinkTemplate(nearlyFull, { raw: 'b' })).toMatch(/\/b$/);
  });

  it('normalises the link it returns', () => {
    expect(renderLinkTemplate('  HTTPS://Example.COM/r/${raw}', { raw: '1.0' })).toBe('https://example.com/r/1.0');
  });
});
