import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { coalesce } from './coalesce.ts';

/**
 * Loads data for a screen; `reload()` fetches again (after a change); `refresh()` is the same,
 * coalesced, for live events (a burst of them is at most two fetches).
 */
export function useResource<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: true });
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, loading: true }));
    try {
      const data = await load();
      if (mine === generation.current) setState({ data, error: null, loading: false });
    } catch (error) {
      if (mine === generation.current) setState((previous) => ({ data: previous.data, error, loading: false }));
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  const refresh = useMemo(() => coalesce(reload), [reload]);
  return { ...state, reload, refresh };
}
