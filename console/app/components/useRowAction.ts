import { useAction } from './useAction.ts';

/**
 * A list's row actions (revoke, remove, archive, set default): asks first when the action cannot
 * be undone, runs it as a `useAction`, then reloads the list.
 */
export function useRowAction(reload: () => Promise<unknown>) {
  const { busy, error, run } = useAction();
  const act = async (work: () => Promise<unknown>, confirmQuestion?: string) => {
    if (confirmQuestion && !globalThis.confirm(confirmQuestion)) return;
    await run(async () => {
      await work();
      await reload();
    });
  };
  return { busy, error, act };
}
