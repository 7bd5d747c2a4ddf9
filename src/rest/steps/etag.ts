// D24 (docs/decisions.md): every GET answer has an ETag, and If-None-Match with it is 304 with no body.
import { hash } from 'node:crypto';
import { StreamedBody } from '../streamed-body.js';
import type { Step } from '../exchange.js';

export function etagOf(body: string | Uint8Array): string {
  return `"${hash('sha1', body, 'base64url')}"`;
}

function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

export const etag: Step = async (exchange, next) => {
  await next(exchange);
  if (exchange.route!.method !== 'GET') return;
  const answer = exchange.answer!;
  // computed once per answer: a shared answer keeps its tag
  const { body } = answer;
  const tag = (answer.etag ??= body instanceof StreamedBody ? body.etag() : etagOf(body ?? ''));
  exchange.headers.ETag = tag;
  if (answer.status === 200 && matchesEtag(exchange.request.header('if-none-match'), tag)) {
    exchange.answer = { status: 304, body: null, headers: answer.headers };
  }
};
