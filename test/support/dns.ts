// Names for tests: this machine has no outside network, so host names resolve from a table.
import type { Resolver } from '../../src/webhooks/target.js';

/** A resolver answering from `table` as DNS would (ENOTFOUND otherwise), remembering every name asked. */
export function tableResolver(table: Readonly<Record<string, string[]>>): { resolve: Resolver; asked: string[] } {
  const asked: string[] = [];
  const resolve: Resolver = async (host) => {
    asked.push(host);
    const answer = table[host];
    if (answer) return answer;
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  };
  return { resolve, asked };
}
