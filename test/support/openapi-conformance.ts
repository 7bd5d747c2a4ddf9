// Checks every answer the HTTP tests receive against the service's own OpenAPI document (GET
// /openapi.json): the operation must exist for the path and method, the status must be one it
// documents, and a JSON body must validate against that status's schema (ajv, JSON Schema 2020-12,
// with formats). The whole REST suite thereby checks conformance, not a second set of assertions.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { createRouter } from '../../src/edge.js';
import { openApiPath } from '../../src/rest/openapi/document.js';
import { routeEndpoint } from '../../src/rest/pipeline.js';
import { routes } from '../../src/rest/routes.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const DOCUMENT_ID = 'https://aud-rates.test/openapi.json';

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

const pointer = (...segments: string[]) => segments.map((s) => s.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export class ConformanceError extends Error {}

export function conformanceChecker(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (path: string) => {
    let validate = validators.get(path);
    if (!validate) validators.set(path, (validate = ajv.compile({ $ref: `${DOCUMENT_ID}#/${path}` })));
    return validate;
  };
  const match = createRouter(routes.map((route) => routeEndpoint(route, () => Promise.resolve())));
  const envelope = ajv.compile({
    type: 'object',
    required: ['success', 'error'],
    additionalProperties: false,
    properties: {
      success: { const: false },
      error: {
        type: 'object',
        required: ['code', 'type', 'info'],
        additionalProperties: false,
        properties: { code: { type: 'integer' }, type: { type: 'string' }, info: { type: 'string' } },
      },
    },
  });

  /** Throws a ConformanceError naming what the answer to `method path` does that the document does not say. */
  return async function check(method: string, target: string, response: Response): Promise<void> {
    const pathname = new URL(target, 'http://rates.test').pathname;
    // The dashboard's pages and the docs page's script are not part of the API.
    if (/^\/(dashboard|docs)(\/|$)/.test(pathname) && !document.paths[pathname]) return;
    const what = `${method} ${target} → ${response.status}`;
    const text = await response.clone().text();
    const json = (response.headers.get('content-type') ?? '').startsWith('application/json') && text !== '' ? (JSON.parse(text) as unknown) : undefined;
    const fail = (problem: string, errors?: unknown): never => {
      throw new ConformanceError(`${what} does not conform to /openapi.json: ${problem}${errors ? ` ${JSON.stringify(errors)}` : ''}\n${text.slice(0, 500)}`);
    };
    if (response.status === 204 && method === 'OPTIONS') return;
    if (response.status === 405) {
      if (text === '') return; // HEAD
      const validate = validatorAt(pointer('components', 'responses', 'MethodNotAllowed', 'content', 'application/json', 'schema'));
      if (!validate(json)) fail('not the 405 envelope', validate.errors);
      return;
    }
    let template: string | undefined;
    try {
      template = document.paths[pathname]
        ? pathname
        : (match(method === 'HEAD' ? 'GET' : method, pathname).endpoint?.path ?? match('GET', pathname).endpoint?.path);
    } catch {
      template = undefined; // a path segment that is not text: 400 before any route
    }
    const path = template === undefined ? undefined : openApiPath(template);
    const verb = method === 'HEAD' ? 'get' : method.toLowerCase();
    const operation = path === undefined ? undefined : document.paths[path]?.[verb];
    if (!operation) {
      // An unknown path, or a method the path does not take refused by a check that comes first (D20's https_required).
      if (text !== '' && (!envelope(json) || (json as { error: { code: number } }).error.code !== response.status))
        fail('an undocumented request must answer the error envelope', envelope.errors);
      return;
    }
    const documented = operation.responses[String(response.status)];
    if (!documented) return fail(`status ${response.status} is not documented for ${verb} ${path}`);
    if (text === '') return;
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (!documented.content?.[type]) fail(`no ${type} content documented for ${response.status}`);
    if (json === undefined) return;
    const validate = validatorAt(pointer('paths', path!, verb, 'responses', String(response.status), 'content', type, 'schema'));
    if (!validate(json)) fail('the body does not match its schema', validate.errors);
  };
}
