// What a recorded request came to, grouped as the usage reports show it.
import { sql } from 'kysely';

export const USAGE_OUTCOMES = ['SUCCESS', 'NOT_MODIFIED', 'CLIENT_ERROR', 'RATE_LIMITED', 'SERVER_ERROR'] as const;
export type Outcome = (typeof USAGE_OUTCOMES)[number];

/** A recorded status's outcome, as OUTCOME_SQL groups it in the database. */
export function outcomeOf(status: number): Outcome {
  if (status === 304) return 'NOT_MODIFIED';
  if (status === 429) return 'RATE_LIMITED';
  if (status >= 500) return 'SERVER_ERROR';
  if (status >= 400) return 'CLIENT_ERROR';
  return 'SUCCESS';
}

/** The outcome of the status of the usage rows `u`, as outcomeOf gives it. */
export const OUTCOME_SQL = sql<Outcome>`CASE
  WHEN u.status = 304 THEN 'NOT_MODIFIED'
  WHEN u.status = 429 THEN 'RATE_LIMITED'
  WHEN u.status >= 500 THEN 'SERVER_ERROR'
  WHEN u.status >= 400 THEN 'CLIENT_ERROR'
  ELSE 'SUCCESS' END`;
