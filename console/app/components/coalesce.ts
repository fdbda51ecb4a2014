/**
 * Wraps a refetch so that a burst of calls costs at most two runs: the one in flight and one
 * more after it (which sees everything the burst changed). Live screens refetch on events, and a
 * busy run sends many; without this each event would be a full reload.
 */
export function coalesce(task: () => Promise<unknown>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await task().catch(() => undefined);
        } while (again);
      } finally {
        running = null;
      }
    })();
    return running;
  };
}
