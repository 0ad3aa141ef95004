import { describe, expect, it } from 'vitest';
import { isUnsafeCss, SvgRejected, sanitizeSvg } from './svg-sanitizer';

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

describe('isUnsafeCss', () => {
  it('lets fragment references and plain rules through', () => {
    expect(isUnsafeCss('.a{fill:url( "#g" );stroke:#000}')).toBe(false);
    expect(isUnsafeCss('.a{behavior:url(x.htc)}')).toBe(true);
    expect(isUnsafeCss('.a{fill:expression(alert(1))}')).toBe(true);
  });
});
