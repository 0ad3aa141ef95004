import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { renderScopeTable } from '../../scripts/scope-table';
import { REPO_ROOT } from '../support/hub-process';

it('docs/scopes.md matches the route table (run `npm run docs:scopes` to refresh it)', () => {
  const onDisk = readFileSync(join(REPO_ROOT, 'docs', 'scopes.md'), 'utf8');
  expect(onDisk).toBe(renderScopeTable());
});
