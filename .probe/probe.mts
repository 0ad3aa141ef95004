import { Miniflare } from 'miniflare';
import { dirname } from 'node:path';
import { buildWorkersBundle } from '/work/main/scripts/build-workers.mjs';
const bundle = await buildWorkersBundle({ outfile: '/tmp/probe-bundle/index.js' });
const mf = new Miniflare({ modules: true, scriptPath: bundle, modulesRoot: dirname(bundle), compatibilityDate: '2026-04-01',
  durableObjects: { HUB: { className: 'HubDurableObject', useSQLite: true }, EDGE_GATEWAY: { className: 'EdgeGatewayObject', useSQLite: true } },
  durableObjectsPersist: '/tmp/probe-do', inspectorPort: 0,
  bindings: { DD_LOG_LEVEL: 'debug', DD_SERVER_HOST: '0.0.0.0' },
  handleRuntimeStdio: (o, e) => { o.pipe(process.stdout); e.pipe(process.stderr); } } as any);
const url = await mf.ready;
console.log('ready', url.href);
const { connectWorkerdInspector } = await import('/work/main/bench/support/workerd-inspector.ts');
const insp = await connectWorkerdInspector(await mf.getInspectorURL());
console.log('inspector');
const t = Date.now();
const r = await fetch(new URL('/api/v1/agents', url), { signal: AbortSignal.timeout(20000) }).catch((e) => e);
console.log('agents', Date.now() - t, r.status ?? String(r));
console.log(await insp.heapNow());
console.log(await Promise.race([insp.heapAfterGc(), new Promise((r) => setTimeout(() => r('gc timeout'), 5000))]));
await mf.dispose();
