import { sql, type RawBuilder } from 'kysely';

/** An account and an inclusive range of its Sydney dates, as its usage is asked for. */
export interface AccountDays {
  accountId: string;
  from: string;
  to: string;
}

/**
 * The ranges as rows `r(account_id, from_day, to_day, n)`, `n` counting from 1 in the order given:
 * three array parameters whatever the number of ranges.
 */
export function rangeRows(ranges: readonly AccountDays[]): RawBuilder<unknown> {
  const column = (value: (range: AccountDays) => string) => ranges.map(value);
  return sql`unnest(${column((r) => r.accountId)}::uuid[], ${column((r) => r.from)}::date[], ${column((r) => r.to)}::date[])
    with ordinality as r(account_id, from_day, to_day, n)`;
}
