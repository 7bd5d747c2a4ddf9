// Every listener's limits: a slow or oversized request is cut off, so no client holds a connection
// or the parser's memory for long.

export interface ListenerLimits {
  /** the request line and headers must arrive within this */
  headersTimeoutMs: number;
  /** the whole request, body included */
  requestTimeoutMs: number;
  /** how long a kept-alive connection may sit idle between requests */
  keepAliveTimeoutMs: number;
}

export const LISTENER_LIMITS: ListenerLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 };

/** the request line and headers together (Node's default, stated so that no flag changes it) */
export const MAX_HEADER_BYTES = 16 * 1024;

/** The limits a configuration sets. */
export function listenerLimitsOf(config: { HEADERS_TIMEOUT_MS: number; REQUEST_TIMEOUT_MS: number; KEEP_ALIVE_TIMEOUT_MS: number }): ListenerLimits {
  return { headersTimeoutMs: config.HEADERS_TIMEOUT_MS, requestTimeoutMs: config.REQUEST_TIMEOUT_MS, keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS };
}
