/**
 * Homepage's What's Up Docker widget, run from its own source (fixtures/homepage, see its README):
 * the widget definition, the generic proxy handler and the HTTP client it uses, bundled by esbuild
 * with the few modules Homepage's Next.js app would provide replaced by stand-ins here: the service
 * configuration (the widget's YAML entry), the logger, the cookie jar, the widget registry, and
 * React's JSX runtime (the component's element tree is read instead of rendered).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';

const SOURCE = new URL('./fixtures/homepage/src/', import.meta.url).pathname;

/** A widget entry of Homepage's services.yaml. */
export interface HomepageWidgetConfig {
  type: 'whatsupdocker';
  url: string;
  username?: string | undefined;
  password?: string | undefined;
}

export interface WidgetBlock {
  label: string;
  value: unknown;
}

export interface HomepageWidget {
  /** What Homepage's /api/services/proxy answers the browser for the widget's "containers" endpoint. */
  proxy(config: HomepageWidgetConfig): Promise<{ status: number; body: string }>;
  /** The blocks the component shows for that answer (as useWidgetAPI hands it over: data, or error). */
  render(answer: { status: number; body: string }): { error: unknown; blocks: WidgetBlock[] };
}

// Stand-ins for what the Next.js app provides; each is the smallest thing the fixture's imports need.
const STAND_INS: Record<string, string> = {
  'utils/config/service-helpers':
    'export default async function getServiceWidget() { return globalThis.__homepageWidgetConfig; }',
  'utils/logger':
    'export default function createLogger() { const log = () => {}; return { debug: log, info: log, warn: log, error: log }; }',
  // No cookies: the hub sets none on these routes.
  './cookie-jar': 'export function addCookieToJar() {} export function setCookieHeader() {}',
  // follow-redirects wraps node:http with the same request API; the hub does not redirect these routes.
  'follow-redirects': "import http from 'node:http'; import https from 'node:https'; export { http, https };",
  // A getter: widget.js → generic.js → widgets/widgets → widget.js is a cycle, as in Homepage.
  'widgets/widgets':
    "import whatsupdocker from 'utils/../widgets/whatsupdocker/widget'; export default { get whatsupdocker() { return whatsupdocker; } };",
  'components/services/widget/container': 'export default function Container() { return null; }',
  'components/services/widget/block': 'export default function Block() { return null; }',
  'utils/proxy/use-widget-api': 'export default function useWidgetAPI() { return globalThis.__homepageWidgetApi; }',
  'react/jsx-runtime':
    'export const Fragment = Symbol("Fragment"); export function jsx(type, props) { return { type, props }; } export const jsxs = jsx;',
};

const FIXTURE_MODULES: Record<string, string> = {
  'utils/proxy/handlers/generic': 'utils/proxy/handlers/generic.js',
  'utils/proxy/api-helpers': 'utils/proxy/api-helpers.js',
  'utils/proxy/validate-widget-data': 'utils/proxy/validate-widget-data.js',
  'utils/proxy/http': 'utils/proxy/http.js',
  'utils/../widgets/whatsupdocker/widget': 'widgets/whatsupdocker/widget.js',
};

function homepageModules(): Plugin {
  return {
    name: 'homepage-modules',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, (args) => {
        const fixture = FIXTURE_MODULES[args.path];
        if (fixture) return { path: join(SOURCE, fixture) };
        if (args.path in STAND_INS) return { path: args.path, namespace: 'stand-in' };
        return undefined;
      });
      builder.onLoad({ filter: /.*/, namespace: 'stand-in' }, (args) => ({
        contents: STAND_INS[args.path] ?? '',
        loader: 'js',
        resolveDir: SOURCE,
      }));
    },
  };
}

const ENTRY = `
import widget from 'utils/../widgets/whatsupdocker/widget';
import Component from './widgets/whatsupdocker/component.jsx';
export { widget, Component };
`;

interface Element {
  type: unknown;
  props: { children?: Element | Element[]; label?: string; value?: unknown; error?: unknown };
}
interface Bundle {
  widget: {
    proxyHandler: (req: unknown, res: unknown, map?: unknown) => Promise<unknown>;
    mappings: Record<string, { endpoint: string; map?: unknown }>;
  };
  Component: (props: { service: { widget: unknown } }) => Element;
}

export async function loadHomepageWidget(): Promise<HomepageWidget> {
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: SOURCE, loader: 'js' },
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    jsx: 'automatic',
    plugins: [homepageModules()],
    logLevel: 'silent',
  });
  const dir = mkdtempSync(join(tmpdir(), 'homepage-widget-'));
  const file = join(dir, 'widget.mjs');
  writeFileSync(file, result.outputFiles[0]?.text ?? '');
  const bundle = (await import(file)) as Bundle;
  rmSync(dir, { recursive: true, force: true });
  const globals = globalThis as { __homepageWidgetConfig?: unknown; __homepageWidgetApi?: unknown };

  return {
    async proxy(config) {
      globals.__homepageWidgetConfig = config;
      // What Homepage's /api/services/proxy route does before the handler: the opaque endpoint
      // name the browser asked for ("containers") becomes the mapping's path.
      const mapping = bundle.widget.mappings['containers'];
      if (!mapping) throw new Error('the widget has no "containers" mapping');
      const req = { method: 'GET', query: { group: 'g', service: 's', endpoint: mapping.endpoint } };
      const answer = { status: 0, body: '' };
      const res = {
        status(code: number) {
          answer.status = code;
          return res;
        },
        json(value: unknown) {
          answer.body = JSON.stringify(value);
          return res;
        },
        send(value: unknown) {
          answer.body = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
          return res;
        },
        end: () => res,
        setHeader: () => res,
      };
      await bundle.widget.proxyHandler(req, res, mapping.map);
      return answer;
    },
    render(answer) {
      // useWidgetAPI (SWR) hands over the parsed body, or an error for a failed answer.
      const parsed: unknown = JSON.parse(answer.body);
      globals.__homepageWidgetApi =
        answer.status >= 400 || (parsed as { error?: unknown }).error !== undefined
          ? { data: undefined, error: (parsed as { error?: unknown }).error ?? parsed }
          : { data: parsed, error: undefined };
      const root = bundle.Component({ service: { widget: { type: 'whatsupdocker' } } });
      const children = root.props.children;
      const blocks = (Array.isArray(children) ? children : children ? [children] : []).map((child) => ({
        label: child.props.label ?? '',
        value: child.props.value,
      }));
      return { error: root.props.error, blocks };
    },
  };
}
