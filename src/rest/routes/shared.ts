// What several rate endpoints share: the body of a day's rates, exact numbers, and the query of a date range.
import { z } from 'zod';
import type { RateValues } from '../../db/rates.js';
import { RawJson, ratesJson } from '../../json.js';
import { Param } from '../params.js';

/** The day of /latest and /{date}, whichever field of the schema answered it. */
interface DayData {
  date: string;
  timestamp: number;
  rates: RateValues;
}

/** The body of /latest and /{date}; with `fallback` (D38), `requested_date` echoes the date asked for. */
export const ratesBody = (day: DayData, requestedDate?: string) => ({
  success: true as const,
  timestamp: day.timestamp,
  base: 'AUD' as const,
  date: day.date,
  requested_date: requestedDate,
  rates: ratesJson(day.rates),
});

/** Exact decimal strings written as JSON numbers. */
export const rawNumbers = (decimals: Record<string, string>): Record<string, RawJson<number>> =>
  Object.fromEntries(Object.entries(decimals).map(([name, value]) => [name, new RawJson<number>(value)]));

/** `symbols` and `base` of /latest, /timeseries and /fluctuation. */
export const SYMBOLS_AND_BASE = {
  symbols: Param.codes.optional(),
  base: Param.base.optional(),
};
/** The query of /timeseries and /fluctuation: a date range, `symbols` and `base`. */
export const DATE_RANGE = z.object({
  start_date: Param.date.meta({ description: 'The first day of the range (YYYY-MM-DD)' }),
  end_date: Param.date.meta({ description: 'The last day of the range (YYYY-MM-DD), not before start_date' }),
  ...SYMBOLS_AND_BASE,
});

/**
 * The check of a query that takes exactly one of a named span (`period`, `year`) or a custom range
 * (`start_date` and `end_date`): both, neither, or half a range is refused (400).
 */
export function spanOrRange<Query extends { start_date?: unknown; end_date?: unknown }>(name: keyof Query & string, examples: string) {
  return (context: z.core.ParsePayload<Query>): void => {
    const { value } = context;
    const custom = value.start_date !== undefined || value.end_date !== undefined;
    if ((value[name] === undefined) === !custom) {
      context.issues.push({ code: 'custom', input: value, message: `Give either ${name} (such as ${examples}) or start_date and end_date, not both` });
    } else if (custom && (value.start_date === undefined || value.end_date === undefined)) {
      context.issues.push({
        code: 'custom',
        input: value,
        message: `Missing required parameter '${value.start_date === undefined ? 'start_date' : 'end_date'}'`,
      });
    }
  };
}
