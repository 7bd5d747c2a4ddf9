// Shared helpers for the RBA parser tests: the fixtures in test/fixtures/rba and
// a way to assert a refusal (RbaFormatError, with its line).

import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { RbaFormatError } from '../../src/rba/index.js';

const dir = new URL('../fixtures/rba/', import.meta.url);

export const fixtureBytes = (name: string): Uint8Array => new Uint8Array(readFileSync(new URL(name, dir)));
export const fixtureText = (name: string): string => readFileSync(new URL(name, dir), 'utf8');

/** Runs fn, expects an RbaFormatError, checks its line and message, returns it. */
export function refusal(fn: () => unknown, line: number, message: RegExp | string): RbaFormatError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(RbaFormatError);
  const err = caught as RbaFormatError;
  expect(err.code).toBe('rba_format');
  expect(err.line).toBe(line);
  if (typeof message === 'string') expect(err.message).toContain(message);
  else expect(err.message).toMatch(message);
  return err;
}

/** Splits text into lines (keeping the line ending style given), edits line n (1-based), joins back. */
export function editLine(text: string, n: number, edit: (line: string) => string, eol = '\n'): string {
  const lines = text.split(eol);
  lines[n - 1] = edit(lines[n - 1]!);
  return lines.join(eol);
}
