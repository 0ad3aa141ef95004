import { describe, expect, it } from 'vitest';
import { readContainerLabels } from '../containers/container-labels';
import { autoUpdatePolicyOf, withAutoUpdatePolicy } from './autoupdate-policy';

describe('io.containers.autoupdate as dd.* policy keys', () => {
  it('reads registry (and its older spelling image) as watched, digest watched, automatic updates opted in', () => {
    for (const value of ['registry', 'image', ' Registry ']) {
      const labels = withAutoUpdatePolicy({ 'io.containers.autoupdate': value });
      expect(labels).toEqual({
        'io.containers.autoupdate': value,
        'dd.watch': 'true',
        'dd.watch.digest': 'true',
        'dd.action.auto': 'true',
      });
      expect(readContainerLabels(labels)).toMatchObject({ watch: true, watchDigest: true, problems: [] });
    }
  });

  it('reads local as no registry check: the container is not watched', () => {
    const labels = withAutoUpdatePolicy({ 'io.containers.autoupdate': 'local' });
    expect(labels['dd.watch']).toBe('false');
    expect(readContainerLabels(labels).watch).toBe(false);
    expect(labels['dd.action.auto']).toBeUndefined();
  });

  it("keeps the container's own dd.* labels over what the policy implies", () => {
    expect(
      withAutoUpdatePolicy({
        'io.containers.autoupdate': 'registry',
        'dd.action.auto': 'false',
        'dd.watch.digest': '',
      }),
    ).toEqual({
      'io.containers.autoupdate': 'registry',
      'dd.watch': 'true',
      'dd.watch.digest': '',
      'dd.action.auto': 'false',
    });
    expect(withAutoUpdatePolicy({ 'io.containers.autoupdate': 'local', 'dd.watch': 'true' })['dd.watch']).toBe('true');
  });

  it('implies nothing without the label or for a value Podman does not know', () => {
    expect(autoUpdatePolicyOf({})).toBeUndefined();
    expect(withAutoUpdatePolicy({ a: 'b' })).toEqual({ a: 'b' });
    expect(withAutoUpdatePolicy({ 'io.containers.autoupdate': 'disabled' })).toEqual({
      'io.containers.autoupdate': 'disabled',
    });
  });

  it('never changes the labels it is given', () => {
    const labels = { 'io.containers.autoupdate': 'registry' };
    withAutoUpdatePolicy(labels);
    expect(labels).toEqual({ 'io.containers.autoupdate': 'registry' });
  });
});
