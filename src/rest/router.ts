import type { Route } from './routes.js';

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

const segmentsOf = (path: string) => path.split('/').filter((s) => s !== '');

/** Finds the route for a path; literal segments win over parameters by the table's order. */
export function createRouter(routes: readonly Route[]): (pathname: string) => RouteMatch | null {
  const compiled = routes.map((route) => ({ route, segments: segmentsOf(route.path) }));
  return (pathname) => {
    let parts: string[];
    try {
      parts = segmentsOf(pathname).map(decodeURIComponent);
    } catch {
      return null; // malformed percent-encoding is no path of ours
    }
    for (const { route, segments } of compiled) {
      if (segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const matches = segments.every((segment, i) => {
        const part = parts[i]!;
        if (!segment.startsWith(':')) return segment === part;
        const name = segment.slice(1);
        if (route.paramPatterns?.[name] && !route.paramPatterns[name].test(part)) return false;
        params[name] = part;
        return true;
      });
      if (matches) return { route, params };
    }
    return null;
  };
}
