import { CURRENCIES, CURRENCY_CODES, type CurrencyInfo } from '../domain/currencies.js';
import { builder } from './builder.js';

export const CurrencyCodeEnum = builder.enumType('CurrencyCode', {
  description: 'The 21 supported codes: AUD (the base), 19 currencies, TWI (an index) and SDR.',
  values: CURRENCY_CODES,
});

export const CurrencyRef = builder.objectRef<CurrencyInfo>('Currency').implement({
  fields: (t) => ({
    code: t.expose('code', { type: CurrencyCodeEnum }),
    name: t.exposeString('name'),
    symbol: t.exposeString('symbol'),
    country: t.exposeString('country', { description: 'Country or region' }),
    convertible: t.exposeBoolean('convertible', { description: 'False for TWI, which cannot be converted' }),
  }),
});

builder.queryField('currencies', (t) =>
  t.field({
    type: [CurrencyRef],
    description: 'Every supported code, AUD first.',
    resolve: () => CURRENCIES,
  }),
);
