// The memos on every keyed request's path, against what they spare: the date in Sydney
// (`sydneyDate`'s hour memo against luxon's zone conversion), an account's billing period
// (`MonthlyQuota`'s memo per billing day against `billingPeriod`) and a connection's peer
// (src/rest/steps/client.ts: read once per connection against reading the socket's address per
// request). Instants are spread over an hour, as a busy hour's requests are. `npx tsx bench/pure-caches.ts`
import { LRUCache } from 'lru-cache';
import { DateTime } from 'luxon';
import { billingPeriod } from '../src/domain/billing.js';
import { sydneyDate } from '../src/domain/calendar.js';
import { socketPeer, type Peer } from '../src/rest/client-address.js';

const HOUR_START = Date.UTC(2026, 10, 27, 3);
const instants = Array.from({ length: 10_000 }, (_, i) => new Date(HOUR_START + ((i * 7_919) % 3_600_000)));

function measure(name: string, call: (now: Date, i: number) => unknown) {
  for (let i = 0; i < 50_000; i++) call(instants[i % instants.length]!, i); // warm up
  const calls = 500_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) call(instants[i % instants.length]!, i);
  const ns = Number(process.hrtime.bigint() - started) / calls;
  console.log(`${name.padEnd(46)} ${ns.toFixed(0).padStart(6)} ns per call`);
}

measure('Sydney date, luxon every time', (now) => DateTime.fromJSDate(now, { zone: 'Australia/Sydney' }).toISODate());
measure('Sydney date, sydneyDate (hour memo)', (now) => sydneyDate(now));
const periods = new LRUCache<number, ReturnType<typeof billingPeriod>>({ max: 31 });
for (let day = 1; day <= 31; day++) periods.set(day, billingPeriod(day, instants[0]!));
measure('billing period, billingPeriod every time', (now, i) => billingPeriod((i % 31) + 1, now));
measure('billing period, memo per billing day (a hit)', (_, i) => periods.get((i % 31) + 1));
const sockets = Array.from({ length: 50 }, (_, i) => ({ remoteAddress: `::ffff:203.0.113.${i + 1}` }));
const peers = new WeakMap<object, Peer>(sockets.map((socket) => [socket, socketPeer(socket.remoteAddress, [])]));
measure("a connection's peer, read every request", (_, i) => socketPeer(sockets[i % sockets.length]!.remoteAddress, []));
measure("a connection's peer, once per connection (a hit)", (_, i) => peers.get(sockets[i % sockets.length]!));
