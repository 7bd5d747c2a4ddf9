// The REST table's paths as the edge's router knows them (src/edge.ts): the routes of each path,
// one per method, and what every request to it shares.
import type { Route } from './route.js';

/** The routes of one path, and what every request to it shares. */
export interface PathRoutes {
  /** one per method */
  routes: readonly Route[];
  /** the methods the path answers: its routes', HEAD with GET, and OPTIONS */
  allow: string;
  /** the path as metrics name it: `/{date}/{currency}` */
  template: string;
  /** false on the account's own endpoints: D25 (docs/decisions.md) keeps CORS to the data endpoints */
  cors: boolean;
}

function allowedMethods(routes: readonly Route[]): string {
  const methods: string[] = routes.map((r) => r.method);
  if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  return [...methods, 'OPTIONS'].join(', ');
}

/** The routes of each path, in the table's order. */
export function pathsOf(table: readonly Route[]): PathRoutes[] {
  const paths = new Map<string, Route[]>();
  for (const route of table) {
    const same = paths.get(route.path);
    if (same) same.push(route);
    else paths.set(route.path, [route]);
  }
  return [...paths.values()].map((routes) => ({
    routes,
    allow: allowedMethods(routes),
    template: routes[0]!.path.replace(/:([a-z]+)/gi, '{$1}'),
    cors: routes.every((r) => r.auth !== 'account'),
  }));
}
