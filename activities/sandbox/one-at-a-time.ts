/**
 * Work queued per key, one at a time in the order it was asked for: a sandbox's commands (its
 * workspace may be shared by a coordinator's children running at once) and its browser page. A
 * failed piece of work does not stop the next. In this process only: a workspace is on the disk of
 * the worker that runs its commands.
 */
export function oneAtATime() {
  const tails = new Map<string, Promise<unknown>>();
  return function run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const settled = result.catch(() => {});
    tails.set(key, settled);
    void settled.then(() => {
      if (tails.get(key) === settled) tails.delete(key);
    });
    return result;
  };
}
