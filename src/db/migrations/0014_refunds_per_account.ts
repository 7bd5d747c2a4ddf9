// Frozen: never edit a migration that has shipped; add a new one.
import { sql, type Kysely } from 'kysely';

/**
 * One grant statement now takes units for the waiting requests of several accounts at once
 * (src/db/quota.ts), so a transaction whose commit went unanswered may owe a refund to each of
 * them: a refund is recorded once per transaction and account. A process of the previous version
 * still running during an upgrade cannot record a refund any more (its statement names the old
 * key); it keeps asking until it stops and then logs the grant, whose units stay counted, which
 * never lets an account past its quota.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table quota_refunds drop constraint quota_refunds_pkey, add primary key (grant_transaction, account_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Refunds of one transaction to several accounts cannot share the old key: the later ones go.
  await sql`delete from quota_refunds r using quota_refunds earlier
            where r.grant_transaction = earlier.grant_transaction and r.account_id > earlier.account_id`.execute(db);
  await sql`alter table quota_refunds drop constraint quota_refunds_pkey, add primary key (grant_transaction)`.execute(db);
}
