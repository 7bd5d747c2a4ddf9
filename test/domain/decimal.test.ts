// Exact decimals (D2, D14, D15 in docs/decisions.md): normalising and converting give the digits
// decimal.js gives, whichever way the text or value comes in.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { Dec, convertAmount, normalizeDecimal } from '../../src/domain/decimal.js';

const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
const plainDecimal = fc.tuple(digits(1, 18), fc.option(digits(1, 12))).map(([whole, fraction]) => (fraction === null ? whole : `${whole}.${fraction}`));

it('writes plain decimal text as decimal.js writes its value: no leading or trailing zeros, no exponent', () => {
  fc.assert(
    fc.property(plainDecimal, (text) => {
      expect(normalizeDecimal(text)).toBe(new Dec(text).toFixed());
    }),
    { seed: 11, numRuns: 20_000 },
  );
  expect(['61.40', '10635', '0.000', '000.5', '1e3', '-0.0012'].map(normalizeDecimal)).toEqual(['61.4', '10635', '0', '0.5', '1000', '-0.0012']);
});

it('writes a Decimal as its own shortest text', () => {
  expect(normalizeDecimal(new Dec('1.2300').toDecimalPlaces(6))).toBe('1.23');
  expect(normalizeDecimal(new Dec('2').dividedBy(3).toDecimalPlaces(6))).toBe('0.666667');
});

it('converts with the rate rounded to 6 places and the result from the unrounded rate rounded to 4, ties away from zero', () => {
  expect(convertAmount('100', '0.6543', '0.5876')).toEqual({ rate: '0.898059', result: '89.8059' });
  expect(convertAmount('1', '3', '2')).toEqual({ rate: '0.666667', result: '0.6667' });
  expect(convertAmount('0.00005', '1', '1')).toEqual({ rate: '1', result: '0.0001' });
});
