// Tells every process sharing the database that keys or rates changed, so caches drop what they
// hold and the rates in memory are read again (PostgreSQL LISTEN/NOTIFY). On the embedded database
// there is only this process.
//
// Postgres hands a notification to each listening session on its own schedule, so hearing one's own
// is no sign that the others have theirs. Each listener therefore answers every change it applies
// on HEARD_CHANNEL, and the process that announced the change waits (boundedly) until every
// listener connected when it announced has answered: when `publish` returns, every process serves
// the change.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { DatabaseTarget } from './connect.js';

// `leader_released`: a stopping process let the leader lock go, so another takes it at once rather
// than at its next periodic try (src/start.ts).
export const CHANNELS = ['keys_changed', 'rates_changed', 'leader_released'] as const;
export type Channel = (typeof CHANNELS)[number];

export interface ChangeFeed {
  /** Resolves once this change is known to every listening process (or after a bounded wait). */
  publish(channel: Channel): Promise<void>;
  /** `handler` runs for every change, this process's own included. */
  subscribe(handler: (channel: Channel) => void): void;
  close(): Promise<void>;
}

/** The feed of a single process: changes reach only this process's subscribers. */
export function localChangeFeed(): ChangeFeed {
  const handlers: ((channel: Channel) => void)[] = [];
  return {
    publish: async (channel) => handlers.forEach((h) => h(channel)),
    subscribe: (handler) => void handlers.push(handler),
    close: async () => {},
  };
}

/** how long an announcement waits for the listeners' answers (a listener that died never answers) */
const HEARD_WAIT_MS = 1_000;
/** where listeners answer that they applied a change (the payload is the change's id) */
const HEARD_CHANNEL = 'change_heard';
/** how the listening sessions are found in pg_stat_activity */
export const LISTENER_APPLICATION_NAME = 'aud-rates change feed';
const RECONNECT_MS = 1_000;

export async function startChangeFeed(target: DatabaseTarget, onError: (error: unknown) => void): Promise<ChangeFeed> {
  if (target.kind === 'pglite') return localChangeFeed();
  // pg loads only for a Postgres server: an embedded start does without it.
  const { Client } = (await import('pg')).default;
  const url = target.url;
  const handlers: ((channel: Channel) => void)[] = [];
  const onChange = (channel: Channel) => handlers.forEach((h) => h(channel));
  const answers = new Map<string, () => void>();
  let client: pg.Client | null = null;
  let closed = false;

  const connect = async (): Promise<void> => {
    const next = new Client({ connectionString: url, application_name: LISTENER_APPLICATION_NAME });
    next.on('notification', ({ channel, payload }) => {
      if (channel === HEARD_CHANNEL) return void (payload && answers.get(payload)?.());
      onChange(channel as Channel);
      if (payload) next.query('select pg_notify($1, $2)', [HEARD_CHANNEL, payload]).catch(onError);
    });
    next.on('error', (error) => {
      onError(error);
      client = null;
      void next.end().catch(() => {});
      if (!closed) setTimeout(() => void reconnect(), RECONNECT_MS).unref();
    });
    await next.connect();
    for (const channel of [...CHANNELS, HEARD_CHANNEL]) await next.query(`LISTEN ${channel}`);
    client = next;
  };
  const reconnect = async () => {
    try {
      await connect();
      // Whatever was announced while the connection was down is unknown: drop every cache.
      for (const channel of CHANNELS) onChange(channel);
    } catch (error) {
      onError(error);
      if (!closed) setTimeout(() => void reconnect(), RECONNECT_MS).unref();
    }
  };
  await connect();

  return {
    subscribe: (handler) => void handlers.push(handler),
    async publish(channel) {
      const id = randomUUID();
      const listener = client;
      // Without its listening connection this process hears no answers (and reads everything again
      // when it reconnects): the change is announced from a connection of its own.
      const announceAlone = async () => {
        const sender = new Client({ connectionString: url });
        sender.on('error', onError); // a connection lost mid-announcement must not end the process
        await sender.connect();
        await sender.query('select pg_notify($1, $2)', [channel, id]).finally(() => sender.end());
      };
      if (!listener) return announceAlone();
      try {
        // Every listener connected now (this process's own included) answers once it applied the change.
        const { rows } = await listener.query<{ n: number }>(
          'select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = $1',
          [LISTENER_APPLICATION_NAME],
        );
        let waiting = rows[0]?.n ?? 0;
        const heard = new Promise<void>((resolve) => {
          answers.set(id, () => --waiting <= 0 && resolve());
          setTimeout(resolve, HEARD_WAIT_MS).unref();
        });
        await listener.query('select pg_notify($1, $2)', [channel, id]);
        await heard;
      } catch (error) {
        onError(error);
        await announceAlone(); // the listening connection broke meanwhile
      } finally {
        answers.delete(id);
      }
    },
    async close() {
      closed = true;
      await client?.end();
    },
  };
}
