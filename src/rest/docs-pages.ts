// GET /openapi.json and GET /docs, beside the REST API: the OpenAPI document and the page that
// renders it with Scalar's API reference. The renderer is the standalone bundle of the
// @scalar/api-reference package, served from this origin like everything the page loads (its
// default web fonts are turned off), so the page asks nothing of any other origin. No key, never
// metered, cacheable.
import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { plainEndpoint, type Answer, type Endpoint, type Exchange } from './exchange.js';
import { envelopeOf } from './steps/errors.js';

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';
const RENDERER_PATH = '/docs/scalar.js';

/** The page may load from this origin only; Scalar writes its styles into the page. */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  body: string;
  etag: string;
  headers: Record<string, string>;
}

const asset = (body: string, headers: Record<string, string>): Asset => ({ body, etag: `"${hash('sha1', body, 'base64url')}"`, headers });

/** The page: Scalar's bundle mounts itself on the script element that names the document. It has no icon of its own, and asks for none. */
function docsPage(title: string): string {
  // No web fonts, no hosted AI agent (it would call Scalar's servers), no link to Scalar's hosted client or its developer toolbar.
  const configuration = JSON.stringify({
    withDefaultFonts: false,
    agent: { disabled: true },
    hideClientButton: true,
    showDeveloperTools: 'never',
    telemetry: false,
  });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
</head>
<body>
<script id="api-reference" data-url="${OPENAPI_PATH}" data-configuration="${configuration.replaceAll('"', '&quot;')}"></script>
<script src="${RENDERER_PATH}"></script>
</body>
</html>
`;
}

/**
 * The three paths as endpoints of the edge's router (src/edge.ts); `document` is the OpenAPI
 * document, made once at start-up. No key, never metered, cacheable; a refusal is the envelope.
 */
export function docsEndpoints(document: object, title: string): Endpoint[] {
  const renderer = readFileSync(createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js'), 'utf8');
  const assets: [string, Asset][] = [
    [
      OPENAPI_PATH,
      asset(JSON.stringify(document), {
        'Content-Type': 'application/json; charset=utf-8',
        'Cache-Control': 'public, max-age=300',
        'Access-Control-Allow-Origin': '*',
      }),
    ],
    [
      DOCS_PATH,
      asset(docsPage(title), {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'public, max-age=300',
        'Content-Security-Policy': DOCS_CSP,
        'Referrer-Policy': 'no-referrer',
        'X-Content-Type-Options': 'nosniff',
      }),
    ],
    [
      RENDERER_PATH,
      asset(renderer, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' }),
    ],
  ];
  return assets.map(([path, found]) =>
    plainEndpoint(
      'GET',
      path,
      (exchange) => {
        exchange.answer = answer(exchange, found);
        return Promise.resolve();
      },
      envelopeOf,
    ),
  );
}

function answer({ request }: Exchange, found: Asset): Answer {
  const headers = { ...found.headers, ETag: found.etag };
  const matches = request
    .header('if-none-match')
    ?.split(',')
    .some((tag) => [found.etag, `W/${found.etag}`, '*'].includes(tag.trim()));
  if (matches) return { status: 304, body: null, headers };
  return { status: 200, body: found.body, headers };
}

/** The two documentation paths as operations of the document itself. */
export const DOCS_OPERATIONS = {
  [OPENAPI_PATH]: {
    get: {
      operationId: 'OpenApiDocument',
      summary: 'This document (OpenAPI 3.1)',
      tags: ['Service'],
      security: [],
      responses: {
        200: {
          description: 'The document',
          headers: { ETag: { $ref: '#/components/headers/ETag' } },
          content: { 'application/json': { schema: { type: 'object' } } },
        },
        304: { description: 'Not modified' },
      },
    },
  },
  [DOCS_PATH]: {
    get: {
      operationId: 'DocsPage',
      summary: 'This document, rendered for people',
      tags: ['Service'],
      security: [],
      responses: {
        200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } },
        304: { description: 'Not modified' },
      },
    },
  },
};
