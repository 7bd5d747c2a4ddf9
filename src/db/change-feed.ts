// Tells every process sharing the database that keys or rates changed, so caches drop what they
// hold (PostgreSQL LISTEN/NOTIFY). On the embedded database there is only this process.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { DatabaseTarget } from './connect.js';

export const CHANNELS = ['keys_changed', 'rates_changed'] as const;
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

const ECHO_WAIT_MS = 1_000;
const RECONNECT_MS = 1_000;

export async function startChangeFeed(target: DatabaseTarget, onError: (error: unknown) => void): Promise<ChangeFeed> {
  if (target.kind === 'pglite') return localChangeFeed();
  const url = target.url;
  const handlers: ((channel: Channel) => void)[] = [];
  const onChange = (channel: Channel) => handlers.forEach((h) => h(channel));
  const echoes = new Map<string, () => void>();
  let client: pg.Client | null = null;
  let closed = false;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', ({ channel, payload }) => {
      onChange(channel as Channel);
      if (payload) echoes.get(payload)?.();
    });
    next.on('error', (error) => {
      onError(error);
      client = null;
      void next.end().catch(() => {});
      if (!closed) setTimeout(() => void reconnect(), RECONNECT_MS).unref();
    });
    await next.connect();
    for (const channel of CHANNELS) await next.query(`LISTEN ${channel}`);
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
      // The sender hears its own notification after Postgres has queued it for every listener.
      const heard = new Promise<void>((resolve) => {
        echoes.set(id, resolve);
        setTimeout(resolve, ECHO_WAIT_MS).unref();
      });
      try {
        const sender = client ?? new pg.Client({ connectionString: url });
        if (sender !== client) await sender.connect();
        await sender.query('select pg_notify($1, $2)', [channel, id]);
        if (sender !== client) await sender.end();
        await heard;
      } finally {
        echoes.delete(id);
      }
    },
    async close() {
      closed = true;
      await client?.end();
    },
  };
}
