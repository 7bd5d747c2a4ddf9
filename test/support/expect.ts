// Assertions shared by the REST tests: the error envelope of docs/api.md §7 and a few header
// shapes.
import { expect } from 'vitest';

export interface JsonResponse {
  status: number;
  body: any;
  headers: Headers;
}

/**
 * docs/api.md §7: `{success: false, error: {code: <status>, type, info}}` and nothing else, with a
 * human-readable info; `info` narrows it (exact text, or a pattern it must match).
 */
export function expectError(res: JsonResponse, status: number, type: string, info?: string | RegExp): void {
  const label = `${status} ${type}, got ${res.status} ${JSON.stringify(res.body)}`;
  expect(res.status, label).toBe(status);
  expect(res.body, label).toEqual({ success: false, error: { code: status, type, info: expect.any(String) } });
  expect(res.body.error.info.length, 'info is a readable sentence').toBeGreaterThan(10);
  if (typeof info === 'string') expect(res.body.error.info).toBe(info);
  else if (info) expect(res.body.error.info).toMatch(info);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The same instant, whatever ISO 8601 spelling the service chose. */
export function expectInstant(actual: unknown, expected: string): void {
  expect(actual).toMatch(ISO_INSTANT);
  expect(new Date(actual as string).toISOString()).toBe(new Date(expected).toISOString());
}

/** Unix time of 00:00 UTC on a date (D5 in docs/decisions.md). */
export const unixOf = (date: string): number => Date.parse(`${date}T00:00:00Z`) / 1000;
