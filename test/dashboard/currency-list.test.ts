// The Currencies field of the webhook form: codes separated by commas or spaces, any case; empty
// is every currency; anything else is refused with the code named.
import { expect, it } from 'vitest';
import { parseCurrencyList } from '../../src/dashboard/currency-list.js';
import { BadRequestError } from '../../src/errors.js';

it('reads codes in any case separated by commas, spaces or both, in the order given', () => {
  expect(parseCurrencyList('usd, EUR  jpy,,gbp\t')).toEqual(['USD', 'EUR', 'JPY', 'GBP']);
  expect(parseCurrencyList('TWI')).toEqual(['TWI']);
});

it('reads an empty or blank field as every currency', () => {
  expect(parseCurrencyList('')).toBeNull();
  expect(parseCurrencyList(' , \n ')).toBeNull();
});

it('leaves duplicates and AUD to the schema, which names them', () => {
  expect(parseCurrencyList('USD usd AUD')).toEqual(['USD', 'USD', 'AUD']);
});

it('refuses unknown codes, unicode and a field longer than 400 characters', () => {
  for (const [text, message] of [
    ['USD, XYZ', 'XYZ is not a currency the service publishes'],
    ['💶', 'is not a currency the service publishes'],
    ['ＵＳＤ', 'is not a currency the service publishes'],
    ['U$D', 'U$D is not a currency the service publishes'],
    ['USD '.repeat(101), 'at most 400 characters'],
    ['x'.repeat(10 * 1024), 'at most 400 characters'],
  ] as const) {
    expect(() => parseCurrencyList(text), text.slice(0, 20)).toThrow(BadRequestError);
    expect(() => parseCurrencyList(text), text.slice(0, 20)).toThrow(message);
  }
});

it('names at most 12 characters of an unknown code', () => {
  expect(() => parseCurrencyList('y'.repeat(300))).toThrow(`${'Y'.repeat(12)} is not a currency the service publishes`);
});
