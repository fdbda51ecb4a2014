/**
 * The loop of the worker's background sweeps: `tick` runs after `firstDelayMs`, then again after
 * the delay each tick returns, one at a time, until `stop()`, which resolves once a running tick
 * ends. `stopping` tells a long tick to end early. A tick must not throw: each sweep logs its own
 * failures and starts over at its next tick.
 */
export function repeatTicks(firstDelayMs: number, tick: (stopping: () => boolean) => Promise<number>): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      running = tick(() => stopped).then((nextDelayMs) => {
        running = null;
        if (!stopped) schedule(nextDelayMs);
      });
    }, delayMs);
  };
  schedule(firstDelayMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
