import { expect, it } from 'vitest';
import { labelMapProblems } from './label-override-problems';
import { actingLabels, mergeLabelOverrides } from './label-overrides';

it('merges container override over global override over the label, naming each source', () => {
  const merged = mergeLabelOverrides(
    { 'dd.watch': 'true', 'dd.group': 'own', 'dd.display.name': 'Own', other: 'kept' },
    { global: { 'dd.group': 'global', 'dd.watch': 'false' }, container: { 'dd.watch': 'true' } },
  );
  expect(merged.labels).toEqual({ 'dd.watch': 'true', 'dd.group': 'global', 'dd.display.name': 'Own', other: 'kept' });
  expect(merged.sources).toEqual({
    'dd.watch': { value: 'true', source: 'override' },
    'dd.group': { value: 'global', source: 'global-override' },
    'dd.display.name': { value: 'Own', source: 'label' },
  });
});

it('acts on the overridden values, the own labels elsewhere', () => {
  const labels = actingLabels({
    labels: { 'dd.action.auto': 'false', 'com.docker.compose.project': 'p' },
    effectiveLabels: {
      'dd.action.auto': { value: 'true', source: 'override' },
      'dd.watch': { value: 'true', source: 'default' },
    },
  });
  expect(labels).toEqual({ 'dd.action.auto': 'true', 'com.docker.compose.project': 'p' });
});

it('names the key of each bad value, read by the label parsers', () => {
  expect(labelMapProblems({ 'dd.watch': 'false', 'dd.tag.include': '^\\d+$', 'dd.rollback.window': '5m' })).toEqual([]);
  const problems = labelMapProblems({
    'dd.watch': 'maybe',
    'dd.tag.exclude': '(',
    'dd.updatePolicy.maturityMode': 'never-ever',
    'dd.action.auto': 'on',
    'dd.rollback.window': 'later',
  });
  expect(problems.map((problem) => problem.split(/[ :]/, 1)[0])).toEqual([
    'dd.watch',
    'dd.updatePolicy.maturityMode',
    'dd.tag.exclude',
    'dd.action.auto',
    'dd.rollback.window',
  ]);
});
