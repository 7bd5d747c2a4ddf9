// The rules of rate alerts in exact decimals: crossings, not levels; moves either way; the change
// an alert reports; what a value may be.
import { describe, expect, it } from 'vitest';
import { alertFires, alertValueFault, changePercent } from '../../src/domain/alerts.js';

describe('alertFires', () => {
  it.each([
    ['above', '0.66', '0.6600', '0.6599', true],
    ['above', '0.66', '0.6601', '0.6599', true],
    ['above', '0.66', '0.6599', '0.6500', false],
    ['above', '0.66', '0.6700', '0.6600', false], // already at the level the day before: no crossing
    ['above', '0.66', '0.6700', '0.6650', false],
    ['below', '0.66', '0.6600', '0.6601', true],
    ['below', '0.66', '0.6500', '0.6700', true],
    ['below', '0.66', '0.6601', '0.6700', false],
    ['below', '0.66', '0.6500', '0.6600', false],
    ['change_pct', '1', '1.01', '1.00', true],
    ['change_pct', '1', '0.99', '1.00', true],
    ['change_pct', '1', '1.0099', '1.00', false],
    ['change_pct', '0.000001', '1.00', '1.00', false],
    ['change_pct', '0.000001', '10635.01', '10635', true],
  ] as const)('%s %s: %s after %s → %s', (condition, level, value, previous, fires) => {
    expect(alertFires(condition, level, value, previous)).toBe(fires);
  });
});

describe('changePercent', () => {
  it('is signed, exact and rounded half away from zero to 6 places', () => {
    expect(changePercent('0.6612', '0.6501')).toBe('1.70743');
    expect(changePercent('0.595', '0.6001')).toBe('-0.849858');
    expect(changePercent('1', '1')).toBe('0');
    expect(changePercent('1.0000005', '1')).toBe('0.00005');
    expect(changePercent('1.000000005', '1')).toBe('0.000001'); // 0.0000005 rounds away from zero
    expect(changePercent('0.999999995', '1')).toBe('-0.000001');
  });
});

describe('alertValueFault', () => {
  it.each(['0.000001', '1', '10635', '999999999.999999', '0.6500000', '007'])('accepts %s', (value) => {
    expect(alertValueFault(value)).toBeNull();
  });
  it.each([
    ['0', 'greater than 0'],
    ['0.0000001', 'at most 6 decimal places'],
    ['1000000000', 'less than 1000000000'],
    ['-1', 'positive decimal'],
    ['1e3', 'positive decimal'],
    ['1.', 'positive decimal'],
    ['.5', 'positive decimal'],
    ['', 'positive decimal'],
    ['١', 'positive decimal'],
  ])('refuses %s', (value, fault) => {
    expect(alertValueFault(value)).toContain(fault);
  });
});
