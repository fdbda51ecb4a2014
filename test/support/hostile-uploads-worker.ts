import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { oneByteParts, uploadOnce } from './raw-multipart.ts';

/**
 * Hostile clients on a thread of their own (so the thread that probes a server measures the
 * server, not its own sending): one client per path, each sending bodies of `parts` one-byte
 * parts back to back for `durationMs` (at least one each). Posts `{ statuses }`, or `{ error }`.
 */
const { baseUrl, key, paths, parts, durationMs } = workerData as { baseUrl: string; key: string; paths: string[]; parts: number; durationMs: number };
const body = oneByteParts(parts);
parentPort!.postMessage({ ready: true });
parentPort!.once('message', () => {
  const statuses: number[] = [];
  Promise.all(
    paths.map(async (path) => {
      const until = performance.now() + durationMs;
      do statuses.push(await uploadOnce(baseUrl, key, path, body));
      while (performance.now() < until);
    }),
  ).then(
    () => parentPort!.postMessage({ statuses }),
    (error: Error) => parentPort!.postMessage({ error: error.message }),
  );
});
