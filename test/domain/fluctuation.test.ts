import { describe, expect, it } from 'vitest';
import { fluctuationOf } from '../../src/domain/fluctuation.js';

describe('fluctuationOf', () => {
  it('is null without a rate', () => {
    expect(fluctuationOf([])).toBeNull();
  });

  it('gives start, end, exact change, range, and the rounded share and mean', () => {
    expect(fluctuationOf(['0.6543', '0.6601', '0.6498', '0.6555'])).toEqual({
      start_rate: '0.6543',
      end_rate: '0.6555',
      change: '0.0012',
      // 0.0012 / 0.6543 × 100 = 0.18340211...
      change_pct: '0.183402',
      min: '0.6498',
      max: '0.6601',
      // 2.6197 / 4 = 0.654925
      mean: '0.654925',
      days: 4,
    });
  });

  it('rounds half away from zero, negative changes included', () => {
    // change -0.0001 / 0.0003 × 100 = -33.3333333...; mean (0.0003 + 0.0002) / 2 = 0.00025
    expect(fluctuationOf(['0.0003', '0.0002'])).toMatchObject({ change: '-0.0001', change_pct: '-33.333333', mean: '0.00025' });
    // mean 0.0000005 rounds to 0.000001 (half away from zero); a fall to zero is -100 %
    expect(fluctuationOf(['0.000001', '0'])).toMatchObject({ mean: '0.000001', change_pct: '-100' });
  });

  it('serves whole numbers without a fraction and trims trailing zeros', () => {
    expect(fluctuationOf(['10635', '10640'])).toMatchObject({ start_rate: '10635', change: '5', mean: '10637.5', change_pct: '0.047015' });
    expect(fluctuationOf(['61.40'])).toEqual({
      start_rate: '61.4',
      end_rate: '61.4',
      change: '0',
      change_pct: '0',
      min: '61.4',
      max: '61.4',
      mean: '61.4',
      days: 1,
    });
  });
});
