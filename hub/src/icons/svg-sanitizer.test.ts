import { describe, expect, it } from 'vitest';
import { SVG_BYPASSES } from '../../../test/support/fixtures/svg-bypasses';
import { isUnsafeCss, SvgRejected, sanitizeSvg } from './svg-sanitizer';

const ROOT = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">';

describe('sanitizeSvg', () => {
  it('keeps a plain icon drawable: its shapes, gradients, fragment references and the SVG namespace', () => {
    const icon =
      '<?xml version="1.0"?><!DOCTYPE svg><svg viewBox="0 0 24 24"><defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs>' +
      '<title>Box &amp; co</title><path d="M0 0h24v24H0z" fill="url(#g)"/><use href="#g" xlink:href="#g"/></svg>';
    expect(sanitizeSvg(icon)).toBe(
      '<svg viewBox="0 0 24 24" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs>' +
        '<title>Box &amp; co</title><path d="M0 0h24v24H0z" fill="url(#g)"/><use href="#g" xlink:href="#g"/></svg>',
    );
  });

  it('drops scripts, event handlers and foreign objects with everything inside them', () => {
    const out = sanitizeSvg(
      '<svg onload="alert(1)"><script>alert(2)</script><script><![CDATA[alert(3)]]></script>' +
        '<foreignObject><body xmlns="http://www.w3.org/1999/xhtml"><img src="x" onerror="alert(4)"/></body></foreignObject>' +
        '<g onclick="alert(5)" ONMOUSEOVER="alert(6)"><circle r="1"/></g><html:script xmlns:html="http://www.w3.org/1999/xhtml">alert(7)</html:script></svg>',
    );
    expect(out).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><g><circle r="1"/></g></svg>',
    );
  });

  it('drops every reference that leaves the document and keeps the children of links', () => {
    const out = sanitizeSvg(
      '<svg><a href="javascript:alert(1)"><rect width="1"/></a><use href="https://evil.test/x.svg#a"/>' +
        '<use xlink:href=" java&#x09;script:alert(1)"/><image href="data:image/svg+xml;base64,PHN2Zz4="/>' +
        '<rect fill="url(https://evil.test/p)" filter="url(\'#f\')" mask="url(data:x)"/></svg>',
    );
    expect(out).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><rect width="1"/><use/><use/><rect filter="url(\'#f\')"/></svg>',
    );
  });

  it('drops style sheets and style attributes that import, fetch, run or hide behind escapes', () => {
    const out = sanitizeSvg(
      '<svg><style>@import url(https://evil.test/a.css);</style><style>.a{background:url(//evil.test/t)}</style>' +
        '<style><![CDATA[.b{fill:url("https://evil.test")}]]></style><style>.c{fill:u\\72l(https://evil.test)}</style>' +
        '<style>.d{fill:url(#g)}</style><rect style="fill:url(https://evil.test/x)"/><rect style="fill:red"/></svg>',
    );
    expect(out).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><style>.d{fill:url(#g)}</style><rect/><rect style="fill:red"/></svg>',
    );
  });

  it('honours no entity the document declares itself (billion laughs, external entities)', () => {
    expect(
      sanitizeSvg(
        '<!DOCTYPE svg [<!ENTITY a "x"><!ENTITY b SYSTEM "file:///etc/passwd">]><svg><text>[&a;&b;&amp;]</text></svg>',
      ),
    ).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><text>[&amp;]</text></svg>',
    );
    // In an attribute the value is dropped instead.
    expect(sanitizeSvg('<!DOCTYPE svg [<!ENTITY ns "x">]><svg><g fill="&ns;"/></svg>')).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><g/></svg>',
    );
  });

  it('refuses what is not one well-formed SVG document', () => {
    for (const bad of [
      '<html><script>alert(1)</script></html>',
      '<svg><g></svg>',
      '<svg></svg><script>alert(1)</script>',
      'text<svg/>',
      '<svg><g a=1/></svg>',
      '',
    ]) {
      expect(() => sanitizeSvg(bad), bad).toThrow(SvgRejected);
    }
  });

  it('re-escapes what it writes, so no value can close its quotes', () => {
    expect(sanitizeSvg('<svg><text id="a&quot;&gt;&lt;script&gt;">1 &lt; 2</text></svg>')).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><text id="a&quot;&gt;&lt;script&gt;">1 &lt; 2</text></svg>',
    );
  });
});

describe('sanitizeSvg against the known bypasses (issue 33, item 8)', () => {
  const ATTACKER = 'http://evil.test:8080';
  const REFERENCE =
    /(?:^|[\s;{"])(?:fill|stroke|clip-path|filter|mask|marker-start|marker-mid|marker-end)\s*[:=]\s*"?url\(\s*['"]?#[\w.:-]+['"]?\s*\)/g;

  /** What in a served icon could still reach out, by an oracle of its own (not the sanitiser's rules). */
  function reachesOut(svg: string): string | undefined {
    const markup = svg.replace(/>[^<]*</g, (text) => (text.includes('{') ? text : '><'));
    const decoded = markup
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    if (decoded.includes('\\')) return 'a backslash';
    if (/evil\.test/.test(decoded)) return 'the attacker';
    if (/image-set|@import/i.test(decoded)) return 'image-set or @import';
    if (/url\s*\(/i.test(decoded.replace(REFERENCE, ''))) return 'a url() that is not a paint or clip reference';
    if (/<(script|foreignObject|image|feImage|iframe|img|set|animate)[\s/>]/i.test(decoded)) return 'an element';
    if (/\s(?:xlink:)?href="(?!#)/.test(decoded) || /\son\w+=/i.test(decoded)) return 'a reference or handler';
    return undefined;
  }

  it.each(SVG_BYPASSES.map((bypass) => [bypass.name, bypass.svg(ATTACKER)]))('%s', (_name, svg) => {
    let out: string;
    try {
      out = sanitizeSvg(svg);
    } catch (error) {
      // Refused whole: the route answers 502 and nothing is served.
      expect(error).toBeInstanceOf(SvgRejected);
      return;
    }
    expect(reachesOut(out), out).toBeUndefined();
    expect(out).toContain('<rect id="kept" width="24" height="24" fill="#2496ed"/>');
  });

  it('drops image-set() and -webkit-image-set() wherever they are, strings and all', () => {
    expect(
      sanitizeSvg(
        '<svg style="background:image-set(\'x.png\' 1x)"><style>a{cursor:-webkit-image-set("c.png" 1x),auto}</style>' +
          '<g mask="IMAGE-SET(\'m.png\' 1x)"/><g mask="url(#m)"/></svg>',
      ),
    ).toBe(`${ROOT}<g/><g mask="url(#m)"/></svg>`);
  });

  it('drops every attribute with a backslash, and reads presentation attributes with CSS escapes decoded', () => {
    expect(
      sanitizeSvg(
        '<svg><rect fill="\\75rl(http://x/p)" id="a\\b" d="M0 0" filter="&#92;75 rl(/f#f)" clip-path="url(#c)"/></svg>',
      ),
    ).toBe(`${ROOT}<rect d="M0 0" clip-path="url(#c)"/></svg>`);
  });

  it('keeps url(#id) where it names an element, and refuses it where a browser fetches the page for it', () => {
    expect(sanitizeSvg('<svg><style>a{fill:url(#g);mask:url("#m")}</style><rect filter="url(\'#f\')"/></svg>')).toBe(
      `${ROOT}<style>a{fill:url(#g);mask:url("#m")}</style><rect filter="url('#f')"/></svg>`,
    );
    expect(
      sanitizeSvg(
        '<svg style="cursor:url(#c), auto"><style>svg{background-image:url(#k)}</style><style>b{content:"fill:" url(#k)}</style></svg>',
      ),
    ).toBe(`${ROOT}</svg>`);
  });
});

describe('isUnsafeCss', () => {
  it('lets fragment references and plain rules through', () => {
    expect(isUnsafeCss('.a{fill:url( "#g" );stroke:#000}')).toBe(false);
    expect(isUnsafeCss('.a{behavior:url(x.htc)}')).toBe(true);
    expect(isUnsafeCss('.a{fill:expression(alert(1))}')).toBe(true);
    expect(isUnsafeCss('.a{cursor:url(#c)}')).toBe(true);
    expect(isUnsafeCss('.a{background:image-set("a.png" 1x)}')).toBe(true);
    expect(isUnsafeCss('.a{background:u/**/rl(x)}')).toBe(true);
  });
});
