import { useCallback, useState } from 'react';

/**
 * One user action against the API: `busy` while it runs (buttons show progress and cannot be
 * pressed twice), `error` for the notice (the service's message and request id). `run` resolves
 * true when the work succeeded.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (work: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await work();
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
