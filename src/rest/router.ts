import { decodePathSegment } from './params.js';
import type { Route } from './routes.js';

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

export interface RouteMatch {
  path: PathRoutes;
  params: Readonly<Record<string, string>>;
}

const MAX_KNOWN_PATHS = 10_000;

const segmentsOf = (path: string) => path.split('/').filter((s) => s !== '');

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

/**
 * Finds the routes for a path; literal segments win over parameters by the table's order; empty
 * segments are ignored (`//latest/` is `/latest`). A segment that does not decode to text (bad
 * UTF-8, NUL, a lone surrogate) is 400 whatever the path.
 */
export function createRouter(table: readonly Route[]): (pathname: string) => RouteMatch | null {
  const compiled = pathsOf(table).map((path) => ({ path, first: path.routes[0]!, segments: segmentsOf(path.routes[0]!.path) }));
  // Most requests repeat a few paths: each is matched once (a match is never changed by callers).
  const known = new Map<string, RouteMatch | null>();
  return (pathname) => {
    let found = known.get(pathname);
    if (found === undefined) {
      if (known.size >= MAX_KNOWN_PATHS) known.clear();
      known.set(pathname, (found = matchPath(pathname)));
    }
    return found;
  };

  function matchPath(pathname: string): RouteMatch | null {
    const parts = segmentsOf(pathname).map(decodePathSegment);
    for (const { path, first, segments } of compiled) {
      if (segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const matches = segments.every((segment, i) => {
        const part = parts[i]!;
        if (!segment.startsWith(':')) return segment === part;
        const name = segment.slice(1);
        if (first.paramPatterns?.[name] && !first.paramPatterns[name].test(part)) return false;
        params[name] = part;
        return true;
      });
      if (matches) return { path, params };
    }
    return null;
  }
}
