import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createHubMetrics } from '../../hub/src/metrics/hub-metrics';
import { REPO_ROOT } from '../support/hub-process';

it('docs/monitoring.md lists every dd_* series the hub registers, and no other', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'monitoring.md'), 'utf8');
  const documented = [...doc.matchAll(/^\| `(dd_\w+)` \|/gm)].map((match) => match[1]);
  expect(documented.sort()).toEqual(createHubMetrics().registry.names().sort());
});
