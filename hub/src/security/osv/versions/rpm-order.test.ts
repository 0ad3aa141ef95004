import { describe, expect, it } from 'vitest';
import { compareRpm } from './rpm-order';

/**
 * Epochs as rpm compares installed packages (rpmVersionCompare reads a header without EPOCH as
 * epoch 0). Red Hat's fixes always carry one (`0:1.9.5p2-10.el9_3`, `1:3.0.7-27.el9`); an rpm
 * database header has none when the package has epoch 0.
 */
describe('compareRpm epochs', () => {
  it('a missing epoch is epoch 0, equal to an explicit 0:', () => {
    expect(compareRpm('1.9.5p2-10.el9_3', '0:1.9.5p2-10.el9_3')).toBe(0);
    expect(compareRpm('1.9.5p2-9.el9', '0:1.9.5p2-10.el9_3')).toBe(-1);
    expect(compareRpm('1.9.5p2-11.el9', '0:1.9.5p2-10.el9_3')).toBe(1);
  });

  it('an epoch decides before the version: a missing one is below 1: whatever the version', () => {
    expect(compareRpm('3.0.9-1.el9', '1:3.0.7-27.el9')).toBe(-1);
    expect(compareRpm('1:3.0.7-24.el9', '1:3.0.7-27.el9')).toBe(-1);
    expect(compareRpm('1:3.0.7-27.el9', '1:3.0.7-27.el9')).toBe(0);
    expect(compareRpm('2:1.0-1', '1:9.9-1')).toBe(1);
  });
});
