// The service's own endpoints: GET /, /status and /symbols.
import { QUOTE_NOTE } from '../../domain/currencies.js';
import { graphql } from '../../graphql.js';
import * as Schemas from '../openapi/schemas.js';
import { defineRoute } from '../route.js';

export const root = defineRoute(Schemas.RootResponse)({
  name: 'Root',
  method: 'GET',
  cacheable: true,
  path: '/',
  auth: 'none',
  document: graphql('query Root { version }'),
  variables: () => ({}),
  respond: (data, req) => ({
    body: {
      success: true,
      message: 'Reserve Bank of Australia exchange rates (table F11.1, 4 pm Sydney), quoted against AUD',
      documentation: req.documentationUrl,
      version: data.version,
    },
  }),
  doc: {
    summary: 'Service information and the link to this documentation',
    errors: [],
    example: {
      request: '/',
      response: {
        success: true,
        message: 'Reserve Bank of Australia exchange rates (table F11.1, 4 pm Sydney), quoted against AUD',
        documentation: 'https://rates.example/docs',
        version: '0.1.0',
      },
      varies: ['documentation', 'version'],
    },
  },
  cacheControl: 'no-cache',
});

export const status = defineRoute(Schemas.StatusResponse)({
  name: 'Status',
  method: 'GET',
  path: '/status',
  auth: 'none',
  document: graphql('query Status { serviceStatus { state servable lastUpdate stale nextUpdateExpected } }'),
  variables: () => ({}),
  respond: ({ serviceStatus: s }) => ({
    status: s.servable ? 200 : 503,
    body: {
      status: s.state,
      last_update: s.lastUpdate ?? 'unknown',
      stale: s.stale,
      next_update_expected: s.nextUpdateExpected,
    },
  }),
  doc: {
    summary: 'Whether the data is current',
    description:
      'Never needs a key and is never metered. `stale` is true when the newest stored rates are older than the last publication the RBA should have made (business days, 4 pm Sydney, with two hours of grace). A 503 (`degraded` without servable data) has the same shape as the 200.',
    errors: [],
    otherResponses: { 503: Schemas.StatusResponse },
    example: { request: '/status' },
  },
  cacheControl: 'no-cache',
});

export const symbols = defineRoute(Schemas.SymbolsResponse)({
  name: 'Symbols',
  method: 'GET',
  cacheable: true,
  path: '/symbols',
  auth: 'none',
  document: graphql('query Symbols { currencies { code name symbol country } }'),
  variables: () => ({}),
  respond: ({ currencies }) => ({
    body: {
      success: true,
      symbols: Object.fromEntries(currencies.map(({ code, ...info }) => [code, info])),
      count: currencies.length,
      base: 'AUD',
      note: QUOTE_NOTE,
    },
  }),
  doc: {
    summary: 'The supported currency codes',
    errors: [],
    example: { request: '/symbols' },
  },
  cacheControl: 'public, max-age=86400',
});
