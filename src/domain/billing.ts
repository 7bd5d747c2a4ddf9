// Billing periods (D17 in docs/decisions.md): a paid plan's quota resets monthly on the account's
// billing day at 00:00 UTC; a billing day past the month's end falls back to its last day. Free
// never resets.

function billingDate(year: number, month: number, billingDay: number): Date {
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(billingDay, lastDay)));
}

export interface BillingPeriod {
  /** 'YYYY-MM-DD' of the period's first day */
  start: string;
  /** the instant the next period starts */
  resetsAt: Date;
}

/**
 * The billing day an account gets when it signs up: the day of the month of that instant in UTC,
 * the time zone its periods turn in. Taken from the service's clock, not the database's `now()`,
 * whose day is the database server's local one (an Australian server's would be a day ahead for
 * ten or eleven hours of each UTC day).
 */
export function billingDayOf(signedUpAt: Date): number {
  return signedUpAt.getUTCDate();
}

export function billingPeriod(billingDay: number, now: Date): BillingPeriod {
  const year = now.getUTCFullYear();
  let month = now.getUTCMonth();
  let start = billingDate(year, month, billingDay);
  if (start > now) {
    month -= 1;
    start = billingDate(year, month, billingDay);
  }
  const resetsAt = billingDate(year, month + 1, billingDay);
  return { start: start.toISOString().slice(0, 10), resetsAt };
}
