import type { TransactionNeed } from '../openapi/route-doc.ts';

/**
 * A turn (a new session's first, a follow-up, a resume) uploads its files before the
 * transaction that records them (docs/decisions/attachment-upload-order.md), so a turn that carries files
 * defers the transaction; one without files runs inside it from the start (about 15% more
 * sessions per second, bench/run-engine.bench.ts).
 */
export const turnTransaction = (body: unknown): TransactionNeed => {
  const files = (body as { files?: unknown } | null)?.files;
  return Array.isArray(files) && files.length > 0 ? 'deferred' : 'eager';
};
