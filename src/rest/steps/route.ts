// A path no surface serves (src/edge.ts routes every request): 404 in the envelope.
import { NotFoundError } from '../../errors.js';
import type { Next } from '../exchange.js';

export const unknownEndpoint: Next = (exchange) =>
  Promise.reject(new NotFoundError(`Unknown endpoint ${exchange.request.url.pathname}; see the documentation for the endpoints`));
