import { useState } from 'react';
import { apiCall, startHostedLogin, type Provider } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';

/**
 * Signing in, by the server's mode (spec 3 "Modes"): development opens a cookie session for the
 * development owner; hosted sends the browser to the identity provider; behind an edge proxy
 * the proxy signs people in, so a missing session means the proxy did not let this one through.
 */
export function SignInScreen({ provider, onSignedIn, error }: { provider: Provider; onSignedIn: () => Promise<void>; error: unknown }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(error);
  const signIn = async () => {
    setBusy(true);
    setFailure(null);
    try {
      if (provider.mode === 'hosted') {
        await startHostedLogin();
        return;
      }
      await apiCall('POST', '/auth/development/login');
      await onSignedIn();
    } catch (caught) {
      setFailure(caught);
      setBusy(false);
    }
  };
  return (
    <main className="sign-in" id="main">
      <h1>Agent Runtime Service</h1>
      {provider.mode === 'edge_proxy' ? (
        <p>
          This console is signed in by your organization's access proxy. Your request reached it without a verified identity: open the console through the
          proxy's address, or ask an administrator to grant you access.
        </p>
      ) : (
        <>
          <p>
            {provider.mode === 'hosted'
              ? 'Sign in with your organization account.'
              : 'Development mode: sign in as the development owner of this installation.'}
          </p>
          <button type="button" onClick={() => void signIn()} disabled={busy} aria-busy={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </>
      )}
      <ErrorNotice error={failure} />
    </main>
  );
}
