import { useState, type FormEvent } from 'react';
import { createApi } from '../api';
import { ErrorLine } from '../parts/error-line';
import { useAction } from '../use-action';

/**
 * One token, checked against the API before it is kept (GET /api/kbs answers any valid token): a wrong one shows the
 * API's own message and is not stored.
 */
export function SignInPage({ onSignedIn }: { onSignedIn: (token: string) => void }) {
  const [token, setToken] = useState('');
  const { busy, error, run } = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await createApi(token.trim()).kbs();
      onSignedIn(token.trim());
    });
  };

  return (
    <main id="main" className="sign-in">
      <h1>ragtime console</h1>
      <p>Sign in with the API token your operator gave you (<code>ragtime token new &lt;tenant&gt;</code>). It is kept in this tab only.</p>
      <form onSubmit={submit}>
        <label htmlFor="token">API token</label>
        <input id="token" name="token" type="password" autoComplete="off" required value={token} onChange={(event) => setToken(event.target.value)} autoFocus />
        <button type="submit" disabled={busy || token.trim() === ''}>Sign in</button>
      </form>
      <ErrorLine error={error} />
    </main>
  );
}
