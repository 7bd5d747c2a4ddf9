import { decodePathSegment } from './params.js';
import type { Route } from './routes.js';

export interface RouteMatch {
  /** every route on the matched path, one per method */
  routes: readonly Route[];
  params: Readonly<Record<string, string>>;
}

const MAX_KNOWN_PATHS = 10_000;

const segmentsOf = (path: string) => path.split('/').filter((s) => s !== '');

/**
 * Finds the routes for a path; literal segments win over parameters by the table's order. A segment
 * that does not decode to text (bad UTF-8, NUL, a lone surrogate) is 400 whatever the path.
 */
export function createRouter(table: readonly Route[]): (pathname: string) => RouteMatch | null {
  const paths = new Map<string, Route[]>();
  for (const route of table) {
    const same = paths.get(route.path);
    if (same) same.push(route);
    else paths.set(route.path, [route]);
  }
  const compiled = [...paths.values()].map((routes) => ({ routes, first: routes[0]!, segments: segmentsOf(routes[0]!.path) }));
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
    for (const { routes, first, segments } of compiled) {
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
      if (matches) return { routes, params };
    }
    return null;
  }
}
