import busboy from 'busboy';
import type { Context } from 'hono';
import { PayloadTooLargeError, ValidationError } from '../domain/errors.ts';
import type { AppEnv } from './env.ts';

/** What one multipart route accepts; each limit is checked as the body's bytes arrive. */
export type MultipartLimits = {
  /** The whole body, multipart framing included. */
  maxBodyBytes: number;
  /** File parts (a part with a filename). */
  maxFiles: number;
  /** Bytes of one file part. */
  maxFileBytes: number;
  /** Text parts. */
  maxFields: number;
  /** Bytes of one text part. */
  maxFieldBytes: number;
};

export type MultipartPart = { kind: 'file'; name: string; filename: string; mimeType: string; bytes: Buffer } | { kind: 'field'; name: string; value: string };

/** Called as each part begins (a text part: once its value is read); throwing refuses the body. */
export type PartCheck = (part: { name: string; kind: MultipartPart['kind'] }) => void;

const unreadable = () => new ValidationError('The multipart body could not be read', { path: 'body' });
const count = (value: number) => value.toLocaleString('en-US');
const counted = (value: number, kind: string) => `${count(value)} ${kind}${value === 1 ? '' : 's'}`;

/**
 * Reads a `multipart/form-data` body as a stream (busboy) and returns its parts in order. Every
 * limit is checked as bytes arrive: the first part past one stops the reading at once and is a
 * 400 naming the limit (`PayloadTooLargeError` for sizes, which the Anthropic-compatible API
 * answers with 413), so a hostile body (hundreds of thousands of tiny parts, a huge file) costs
 * no more than its first parts. Nothing is buffered beyond what the limits allow.
 */
export async function readMultipart(c: Context<AppEnv>, limits: MultipartLimits, checkPart: PartCheck = () => {}): Promise<MultipartPart[]> {
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > limits.maxBodyBytes) throw bodyTooLarge(limits);
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': c.req.header('content-type') ?? '' },
      // Skill files are named by their paths; filenames are sent as UTF-8.
      preservePath: true,
      defParamCharset: 'utf8',
      // busboy flags a file or field that reaches its size limit, and emits `partsLimit` once
      // that many parts have ended: one more than ours, so reaching our limit is still fine.
      // `files` and `fields` are refused as the first part past them begins.
      limits: {
        files: limits.maxFiles,
        fields: limits.maxFields,
        parts: limits.maxFiles + limits.maxFields + 1,
        fileSize: limits.maxFileBytes + 1,
        fieldSize: limits.maxFieldBytes + 1,
      },
    });
  } catch {
    throw unreadable();
  }

  const reader = (c.req.raw.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() })).getReader();
  const parts: Array<MultipartPart | { kind: 'file'; pending: Buffer[]; name: string; filename: string; mimeType: string }> = [];
  let refusal: Error | undefined;
  let wake = () => {};
  const refused = new Promise<void>((resolve) => (wake = resolve));
  // The first refusal wins; cancelling the reader ends a read that waits for more bytes.
  const refuse = (error: unknown) => {
    refusal ??= error instanceof Error ? error : unreadable();
    wake();
    void reader.cancel().catch(() => {});
  };
  const check = (name: string, kind: MultipartPart['kind']) => {
    try {
      checkPart({ name, kind });
      return true;
    } catch (error) {
      refuse(error);
      return false;
    }
  };

  parser.on('file', (name, stream, info) => {
    // The parser's own error (or a refusal) ends the body; destroying it destroys this stream too.
    stream.on('error', () => {});
    if (refusal || !check(name, 'file')) return void stream.resume();
    const part = { kind: 'file' as const, pending: [] as Buffer[], name, filename: info.filename ?? '', mimeType: info.mimeType };
    parts.push(part);
    stream.on('data', (chunk: Buffer) => part.pending.push(chunk));
    stream.on('limit', () =>
      refuse(
        new PayloadTooLargeError(`${name}: a file part may hold at most ${count(limits.maxFileBytes)} bytes`, {
          path: `body.${name}`,
          limit: 'multipart_file_bytes',
          maxBytes: limits.maxFileBytes,
        }),
      ),
    );
  });
  parser.on('field', (name, value, info) => {
    if (refusal) return;
    if (info.valueTruncated)
      return refuse(
        new PayloadTooLargeError(`${name}: a text part may hold at most ${count(limits.maxFieldBytes)} bytes`, {
          path: `body.${name}`,
          limit: 'multipart_field_bytes',
          maxBytes: limits.maxFieldBytes,
        }),
      );
    if (check(name, 'field')) parts.push({ kind: 'field', name, value });
  });
  parser.on('filesLimit', () =>
    refuse(
      new ValidationError(`The body may hold at most ${counted(limits.maxFiles, 'file part')}`, {
        path: 'body',
        limit: 'multipart_files',
        max: limits.maxFiles,
      }),
    ),
  );
  parser.on('fieldsLimit', () =>
    refuse(
      new ValidationError(`The body may hold at most ${counted(limits.maxFields, 'text part')}`, {
        path: 'body',
        limit: 'multipart_fields',
        max: limits.maxFields,
      }),
    ),
  );
  parser.on('partsLimit', () =>
    refuse(
      new ValidationError(`The body may hold at most ${counted(limits.maxFiles + limits.maxFields, 'part')}`, {
        path: 'body',
        limit: 'multipart_parts',
        max: limits.maxFiles + limits.maxFields,
      }),
    ),
  );
  const finished = new Promise<void>((resolve, reject) => {
    parser.on('close', resolve);
    parser.on('error', reject);
  });
  // A refusal settles the body without waiting for the parser.
  finished.catch(() => {});

  try {
    let received = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (refusal) break;
      if (done) {
        parser.end();
        break;
      }
      received += value.byteLength;
      if (received > limits.maxBodyBytes) {
        refuse(bodyTooLarge(limits));
        break;
      }
      if (!parser.write(Buffer.from(value.buffer, value.byteOffset, value.byteLength))) {
        await Promise.race([refused, new Promise<void>((resolve) => parser.once('drain', resolve).once('close', resolve))]);
      }
    }
    if (!refusal) await Promise.race([finished, refused]);
  } catch (error) {
    // A limit of the request itself (api/middleware/body-ceiling.ts) or a cut connection.
    refuse(error instanceof ValidationError ? error : unreadable());
  }
  if (refusal) {
    parser.destroy();
    throw refusal;
  }
  return parts.map((part) =>
    'pending' in part ? { kind: 'file', name: part.name, filename: part.filename, mimeType: part.mimeType, bytes: Buffer.concat(part.pending) } : part,
  );
}

function bodyTooLarge(limits: MultipartLimits) {
  return new PayloadTooLargeError(`The request body may hold at most ${count(limits.maxBodyBytes)} bytes`, {
    path: 'body',
    limit: 'multipart_body_bytes',
    maxBytes: limits.maxBodyBytes,
  });
}
