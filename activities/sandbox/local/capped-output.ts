import type { Readable } from 'node:stream';

/**
 * Keeps the first `cap` bytes of a stream and drains the rest, so a chatty command never blocks
 * on a full pipe nor grows the worker's memory.
 */
export type CappedOutput = { bytes(): Buffer; truncated(): boolean };

export function captureCapped(stream: Readable, cap: number): CappedOutput {
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  stream.on('data', (chunk: Buffer) => {
    const room = cap - kept;
    if (chunk.length > room) truncated = true;
    if (room <= 0) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    chunks.push(part);
    kept += part.length;
  });
  stream.on('error', () => {});
  return { bytes: () => Buffer.concat(chunks, kept), truncated: () => truncated };
}
