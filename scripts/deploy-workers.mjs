// `npm run deploy:workers [-- <wrangler deploy options>]`: the configuration check in its deploy mode,
// the bundle built as the Miniflare tests build it (buildWorkersBundle), then `wrangler deploy`, which
// uploads that file unchanged (wrangler.toml: `main` is the bundle, `no_bundle = true`). Options pass
// through to wrangler: `-- --dry-run --outdir /tmp/upload` writes the upload without an account.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { buildWorkersBundle, ROOT } from './build-workers.mjs';

const EXIT_CONFIG = 78;
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

const config = join(ROOT, 'wrangler.toml');
const checked = run(bin('tsx'), [join(ROOT, 'scripts', 'check-workers-config.ts'), '--deploy', config]);
if (checked !== 0) process.exit(checked === EXIT_CONFIG ? EXIT_CONFIG : 1);
const bundle = await buildWorkersBundle();
console.log(`built ${bundle}`);
process.exit(
  run(bin('wrangler'), ['deploy', '--config', config, ...process.argv.slice(2)], {
    ...process.env,
    WRANGLER_SEND_METRICS: process.env.WRANGLER_SEND_METRICS ?? 'false',
  }),
);
