/**
 * Issue 28 item 2, the containers list's pure parts without a browser: an update's temporary
 * `-old-` container folded into the container being updated, the filters in force in words, the
 * candidate's age, the short image, and the column choice read back from preferences.
 */
import { describe, expect, it } from 'vitest';
import type { Container } from '../../shared/schemas/container';
import { ageWords } from '../../ui/src/format-time';
import { readColumns } from '../../ui/src/views/containers/columns';
import {
  activeFilters,
  collapseRecreated,
  filterContainers,
  listQueryPath,
  readListQuery,
} from '../../ui/src/views/containers/list-query';
import { fullReference, shortImage } from '../../ui/src/views/containers/row-words';
import { containerRecord, withImage } from '../support/container-fixture';

const record = (id: string, name: string, over: Partial<Container> = {}) =>
  containerRecord({ id: id.padEnd(64, '0'), name, ...over });

describe('collapseRecreated', () => {
  it('returns the very list when nothing is being re-created', () => {
    const all = [record('1', 'web'), record('2', 'db')];
    expect(collapseRecreated(all)).toBe(all);
  });

  it('leaves out the renamed old container once the new one exists', () => {
    const old = record('1', 'web-old-1767225600000', { createdAt: '2026-01-01T00:00:00.000Z' });
    const fresh = record('2', 'web', { createdAt: '2026-01-02T00:00:00.000Z' });
    expect(collapseRecreated([old, record('3', 'db'), fresh]).map((c) => c.id)).toEqual([
      record('3', 'db').id,
      fresh.id,
    ]);
  });

  it('shows the old container under its own name while the new one does not exist yet', () => {
    const [shown] = collapseRecreated([record('1', 'web-old-1767225600000')]);
    expect(shown).toMatchObject({ name: 'web', displayName: 'web' });
  });

  it('keeps the newer of two records of one identity, and the same name on two agents apart', () => {
    const older = record('1', 'web', { createdAt: '2026-01-01T00:00:00.000Z' });
    const newer = record('2', 'web', { createdAt: '2026-01-02T00:00:00.000Z' });
    const elsewhere = record('3', 'web', { agent: 'nas' });
    expect(collapseRecreated([older, newer, elsewhere]).map((c) => c.id)).toEqual([newer.id, elsewhere.id]);
  });

  it('does not take a name that merely contains -old- for a temporary one', () => {
    const all = [record('1', 'bold-old-school'), record('2', 'web-old-123')];
    expect(collapseRecreated(all)).toBe(all);
  });
});

describe('activeFilters', () => {
  it('names the filters in force, never the sort or the grouping', () => {
    const list = readListQuery('?q=%20web%20&status=exited&agent=-&sort=-name&group=host');
    expect(activeFilters(list).map((f) => `${f.label}: ${f.value}`)).toEqual([
      'Name or image: “web”',
      'Host: this hub',
      'Status: exited',
    ]);
    expect(activeFilters(readListQuery('?sort=name'))).toEqual([]);
  });

  it('filters by source type in words, docker being the records that name none', () => {
    const list = readListQuery('?watcherType=dockerfile');
    expect(activeFilters(list).map((f) => `${f.label}: ${f.value}`)).toEqual(['Source: Dockerfiles and compose files']);
    const fleet = [
      record('1', 'web'),
      record('2', 'api (compose.yaml)', { watcherType: 'dockerfile' }),
      record('3', 'shop-api', { watcherType: 'podman' }),
    ];
    expect(filterContainers(fleet, list).map((c) => c.name)).toEqual(['api (compose.yaml)']);
    expect(filterContainers(fleet, readListQuery('?watcherType=docker')).map((c) => c.name)).toEqual(['web']);
    // An unknown type in the address is no filter, and the address written back leaves it out.
    const unknown = readListQuery('?watcherType=kubernetes');
    expect(filterContainers(fleet, unknown)).toHaveLength(3);
    expect(listQueryPath(readListQuery('?watcherType=podman&status=running'))).toBe(
      '/containers?watcherType=podman&status=running',
    );
  });
});

describe('the row’s words', () => {
  const now = Date.parse('2026-03-10T12:00:00Z');
  it('says the age in one unit', () => {
    expect(ageWords('2026-03-10T11:59:40Z', now)).toBe('just now');
    expect(ageWords('2026-03-10T07:00:00Z', now)).toBe('5 hours');
    expect(ageWords('2026-03-09T11:00:00Z', now)).toBe('1 day');
    expect(ageWords('2026-01-20T12:00:00Z', now)).toBe('49 days');
    expect(ageWords('2025-10-01T12:00:00Z', now)).toBe('5 months');
    expect(ageWords('2023-01-01T12:00:00Z', now)).toBe('3 years');
    expect(ageWords(undefined, now)).toBe('—');
    expect(ageWords('not a date', now)).toBe('—');
  });

  it('drops the registry host from the image, keeping the full reference for the copy', () => {
    const onHost = withImage(record('1', 'web'), '127.0.0.1:5000', 'team/web', '2.1.0');
    expect(shortImage(onHost)).toBe('team/web');
    expect(fullReference(onHost)).toBe('127.0.0.1:5000/team/web:2.1.0');
    expect(shortImage(record('2', 'web'))).toBe('web');
    expect(fullReference(record('2', 'web'))).toBe('docker.io/library/web:1.0.0');
  });
});

describe('readColumns', () => {
  it('keeps known columns in their order and falls back to all of them', () => {
    expect(readColumns(['status', 'image', 'nonsense', 3])).toEqual(['image', 'status']);
    expect(readColumns([])).toEqual([]);
    expect(readColumns('image')).toHaveLength(7);
    expect(readColumns(undefined)).toHaveLength(7);
  });
});
