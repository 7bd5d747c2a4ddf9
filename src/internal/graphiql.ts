// GraphiQL for the operator's browser, built entirely from the @graphql-yoga/render-graphiql
// package: its scripts, styles, fonts and editor workers are inlined in the one page (data: and
// blob: URLs), so loading it asks nothing of any other origin. The page holds no data; every query
// it sends is checked like any other (session cookie or bearer token).

export const SIGN_IN_PATH = '/sign-in';

/**
 * The browser may fetch from this origin only; inline scripts and styles and the data: and blob:
 * URLs are how the package ships GraphiQL. Monaco's editor compiles its workers from blob: URLs.
 */
export const GRAPHIQL_CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const STARTING_DOCUMENT = `# Sign in first (${SIGN_IN_PATH} on this port) with the operator token; then, for example:
query ServiceStatus {
  serviceStatus { state newestRateDate stale nextUpdateExpected }
}
`;

let page: Promise<string> | undefined;

/**
 * The page, rendered once, when first asked for (the package's assets make it about 10 MB, and
 * loading the package is left out of start-up).
 */
export function graphiqlPage(endpoint: string): Promise<string> {
  return (page ??= import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) =>
    renderGraphiQL({ title: 'aud-rates internal GraphQL', endpoint, defaultQuery: STARTING_DOCUMENT, credentials: 'same-origin' }),
  ));
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The sign-in form: the token goes in a POST body, never in a URL. */
export function signInPage(graphqlPath: string, problem?: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in: aud-rates internal GraphQL</title></head>
<body>
<h1>Operator sign-in</h1>
${problem ? `<p role="alert">${escapeHtml(problem)}</p>` : ''}
<form method="post" action="${SIGN_IN_PATH}">
<label>Operator token <input type="password" name="token" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>
<p>Then open <a href="${graphqlPath}">GraphiQL</a>.</p>
</body>
</html>
`;
}
