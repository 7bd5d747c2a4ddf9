// The 21 codes the service knows: AUD (the base) and the 20 series it serves from RBA table F11.1.
import { padDecimal, trimDecimal } from './decimal.js';

// The codes stored from the RBA's daily table F11.1: every value is "A$1 = x units" (AUD is the
// base and is never stored itself).
export const PUBLISHED_CODES = [
  'USD',
  'EUR',
  'GBP',
  'JPY',
  'CNY',
  'KRW',
  'INR',
  'SGD',
  'NZD',
  'THB',
  'MYR',
  'IDR',
  'VND',
  'HKD',
  'PHP',
  'CAD',
  'CHF',
  'TWD',
  'TWI',
  'SDR',
] as const;

export type PublishedCode = (typeof PUBLISHED_CODES)[number];

const PUBLISHED_SET: ReadonlySet<string> = new Set(PUBLISHED_CODES);

export function isPublishedCode(value: string): value is PublishedCode {
  return PUBLISHED_SET.has(value);
}

/** A code as a client may write it (' usd'): codes are read in any case, blanks around them ignored. */
export const codeOf = (text: string): string => text.trim().toUpperCase();

export const CURRENCY_CODES = ['AUD', ...PUBLISHED_CODES] as const;
export type CurrencyCode = (typeof CURRENCY_CODES)[number];
/** The codes quoted against AUD, in the order every rates object is served in (/latest's). */
export const QUOTED_CODES: readonly CurrencyCode[] = PUBLISHED_CODES;

export interface CurrencyInfo {
  code: CurrencyCode;
  name: string;
  symbol: string;
  country: string;
  /** false only for TWI, an index rather than a currency (docs/api.md §2.1) */
  convertible: boolean;
}

const info = (code: CurrencyCode, name: string, symbol: string, country: string): CurrencyInfo => ({
  code,
  name,
  symbol,
  country,
  convertible: code !== 'TWI',
});

export const CURRENCIES: readonly CurrencyInfo[] = [
  info('AUD', 'Australian Dollar', 'A$', 'Australia'),
  info('USD', 'US Dollar', 'US$', 'United States'),
  info('EUR', 'Euro', '€', 'Euro area'),
  info('GBP', 'Pound Sterling', '£', 'United Kingdom'),
  info('JPY', 'Japanese Yen', '¥', 'Japan'),
  info('CNY', 'Chinese Renminbi', 'CN¥', 'China'),
  info('KRW', 'South Korean Won', '₩', 'South Korea'),
  info('INR', 'Indian Rupee', '₹', 'India'),
  info('SGD', 'Singapore Dollar', 'S$', 'Singapore'),
  info('NZD', 'New Zealand Dollar', 'NZ$', 'New Zealand'),
  info('THB', 'Thai Baht', '฿', 'Thailand'),
  info('MYR', 'Malaysian Ringgit', 'RM', 'Malaysia'),
  info('IDR', 'Indonesian Rupiah', 'Rp', 'Indonesia'),
  info('VND', 'Vietnamese Dong', '₫', 'Vietnam'),
  info('HKD', 'Hong Kong Dollar', 'HK$', 'Hong Kong'),
  info('PHP', 'Philippine Peso', '₱', 'Philippines'),
  info('CAD', 'Canadian Dollar', 'C$', 'Canada'),
  info('CHF', 'Swiss Franc', 'CHF', 'Switzerland'),
  info('TWD', 'New Taiwan Dollar', 'NT$', 'Taiwan'),
  info('TWI', 'Trade-weighted Index (May 1970 = 100)', 'TWI', 'Australia'),
  info('SDR', 'Special Drawing Right', 'XDR', 'International Monetary Fund'),
];

/**
 * How the RBA publishes each series of table F11.1, as its own header block names it: the series
 * id, the `Title` and `Units` cells of its column (TWI's unit is `Index`), and the decimal places
 * of every value (D2 in docs/decisions.md). The one place the service knows them: the parsers map
 * columns by these units, and every text output writes values with these places.
 */
export interface PublishedSeries {
  seriesId: string;
  title: string;
  units: string;
  places: number;
}

const series = (seriesId: string, title: string, units: string, places: number): PublishedSeries => ({ seriesId, title, units, places });

export const PUBLISHED_SERIES: Readonly<Record<PublishedCode, PublishedSeries>> = {
  USD: series('FXRUSD', 'A$1=USD', 'USD', 4),
  EUR: series('FXREUR', 'A$1=EUR', 'EUR', 4),
  GBP: series('FXRUKPS', 'A$1=GBP', 'GBP', 4),
  JPY: series('FXRJY', 'A$1=JPY', 'JPY', 2),
  CNY: series('FXRCR', 'A$1=CNY', 'CNY', 4),
  KRW: series('FXRSKW', 'A$1=KRW', 'KRW', 2),
  INR: series('FXRIRE', 'A$1=INR', 'INR', 2),
  SGD: series('FXRSD', 'A$1=SGD', 'SGD', 4),
  NZD: series('FXRNZD', 'A$1=NZD', 'NZD', 4),
  THB: series('FXRTB', 'A$1=THB', 'THB', 2),
  MYR: series('FXRMR', 'A$1=MYR', 'MYR', 4),
  IDR: series('FXRIR', 'A$1=IDR', 'IDR', 0),
  VND: series('FXRVD', 'A$1=VND', 'VND', 0),
  HKD: series('FXRHKD', 'A$1=HKD', 'HKD', 4),
  PHP: series('FXRPHP', 'A$1=PHP', 'PHP', 2),
  CAD: series('FXRCD', 'A$1=CAD', 'CAD', 4),
  CHF: series('FXRSF', 'A$1=CHF', 'CHF', 4),
  TWD: series('FXRNTD', 'A$1=TWD', 'TWD', 2),
  TWI: series('FXRTWI', 'Trade-weighted Index May 1970 = 100', 'Index', 2),
  SDR: series('FXRSDR', 'A$1=SDR', 'SDR', 4),
};

/** The decimal places a code's values are published with; AUD, the base, is 1. */
export const publishedPlaces = (code: string): number => (isPublishedCode(code) ? PUBLISHED_SERIES[code].places : 0);

/**
 * A value as text outputs write it (D48 in docs/decisions.md): with its series' published places,
 * as the RBA wrote it ('0.6400', '96.10', '10635'), where JSON keeps the shortest exact number.
 */
export const publishedText = (code: string, value: string): string => padDecimal(value, publishedPlaces(code));

const CODE_SET: ReadonlySet<string> = new Set(CURRENCY_CODES);

export function isCurrencyCode(value: string): value is CurrencyCode {
  return CODE_SET.has(value);
}

/** D1 (docs/decisions.md): the direction of every rate the service serves. */
export const QUOTE_NOTE =
  'All rates are quoted against the Australian dollar (AUD): each value is the units of foreign currency that 1 AUD buys, as published by the Reserve Bank of Australia (table F11.1, 4 pm Sydney). TWI is an index, not a currency.';

/** Rates as served: the shortest exact text ('61.40' is 61.4), in the order of the code list. */
export function canonicalRates(rates: Readonly<Record<string, string>>): Record<string, string> {
  const ordered: Record<string, string> = {};
  for (const code of PUBLISHED_CODES) if (rates[code] !== undefined) ordered[code] = trimDecimal(rates[code]);
  return ordered;
}
