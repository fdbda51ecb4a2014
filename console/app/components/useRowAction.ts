import { useState } from 'react';

/**
 * A list's row actions (revoke, remove, archive, set default): asks first when the action cannot
 * be undone, runs it, reloads the list, and keeps the service's refusal to show above the list.
 */
export function useRowAction(reload: () => Promise<unknown>) {
  const [error, setError] = useState<unknown>(null);
  const act = async (work: () => Promise<unknown>, confirmQuestion?: string) => {
    if (confirmQuestion && !globalThis.confirm(confirmQuestion)) return;
    setError(null);
    try {
      await work();
      await reload();
    } catch (caught) {
      setError(caught);
    }
  };
  return { error, act };
}
