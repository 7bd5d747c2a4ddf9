// The pages of signing in: the address form, "check your e-mail", the link's confirmation, and a
// link that cannot sign in.
import { Layout, type PageAssets } from './layout.js';

export function SignInPage({ assets, error, email }: { assets: PageAssets; error?: string; email?: string }) {
  return (
    <Layout title="Sign in" assets={assets}>
      <section class="card narrow stack">
        <h1>Sign in or sign up</h1>
        <p class="muted">We e-mail you a link that signs you in. A new address gets a Free account when its link is first used.</p>
        <form method="post" action="/dashboard/sign-in-link" class="stack">
          <div>
            <label for="email">E-mail</label>
            <input
              id="email"
              name="email"
              type="email"
              autocomplete="email"
              required
              maxLength={254}
              value={email}
              aria-invalid={error ? 'true' : undefined}
              aria-describedby={error ? 'email-error' : undefined}
            />
          </div>
          {error && (
            <p id="email-error" class="error">
              {error}
            </p>
          )}
          <button type="submit">Send sign-in link</button>
        </form>
      </section>
    </Layout>
  );
}

export function CheckEmailPage({ assets, minutes }: { assets: PageAssets; minutes: number }) {
  return (
    <Layout title="Check your e-mail" assets={assets}>
      <section class="card narrow stack">
        <h1>Check your e-mail</h1>
        <p>If the address can receive mail, a sign-in link is on its way. It works once and expires in {minutes} minutes.</p>
        <p class="muted">
          Nothing arrived? Check the spam folder, or <a href="/dashboard">ask for another link</a>.
        </p>
      </section>
    </Layout>
  );
}

export function ConfirmSignInPage({ assets, token }: { assets: PageAssets; token: string }) {
  return (
    <Layout title="Sign in" assets={assets}>
      <section class="card narrow stack">
        <h1>Sign in</h1>
        <p>Continue to your dashboard. The link works once.</p>
        <form method="post" action="/dashboard/sign-in">
          <input type="hidden" name="token" value={token} />
          <button type="submit">Sign in</button>
        </form>
      </section>
    </Layout>
  );
}

export function BadLinkPage({ assets, message }: { assets: PageAssets; message: string }) {
  return (
    <Layout title="Link not valid" assets={assets}>
      <section class="card narrow stack">
        <h1>This link cannot sign you in</h1>
        <p>{message}</p>
        <p>
          <a href="/dashboard">Get a new sign-in link</a>
        </p>
      </section>
    </Layout>
  );
}
