import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * Multipart uploads over a raw socket, for tests of what a server does while a body is still
 * arriving: each `send` is one chunk of a chunked body (or raw bytes under a declared length), so
 * the moment a part has been sent is well defined. Plain TypeScript (no vitest), so a worker
 * thread can run it too (`hostile-uploads-worker.ts`).
 */
export const BOUNDARY = 'hostile-boundary-7f3a';

export const filePart = (name: string, filename: string, bytes: string | Buffer = 'x') =>
  Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: text/markdown\r\n\r\n`),
    Buffer.from(bytes),
    Buffer.from('\r\n'),
  ]);

export const fieldPart = (name: string, value: string) => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);

/** `count` one-byte file parts named `files[]` (the SDK's name), built at once. */
export function oneByteParts(count: number): Buffer {
  const part = filePart('files[]', 'hostile/a.md');
  const bytes = Buffer.allocUnsafe(part.length * count);
  for (let index = 0; index < count; index++) part.copy(bytes, index * part.length);
  return bytes;
}

export type Answer = { status: number; body: { type: string; error: { type: string; message: string; details?: Record<string, unknown> } }; at: number };

export type RawUpload = ReturnType<typeof openUpload>;

/**
 * A `POST` of `path` under `baseUrl` with `key`. `answer` settles when the whole response is in
 * (`at`: when its first byte arrived); `closed` when the connection is gone.
 */
export function openUpload(baseUrl: string, key: string, path: string, options: { contentLength?: number; contentType?: string } = {}) {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  // After answering, the server may cut off the rest of the body.
  socket.on('error', () => {});
  const length = options.contentLength === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${options.contentLength}`;
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${key}\r\nanthropic-version: 2023-06-01\r\n` +
      `Content-Type: ${options.contentType ?? `multipart/form-data; boundary=${BOUNDARY}`}\r\n${length}\r\n\r\n`,
  );
  let received = Buffer.alloc(0);
  let firstByteAt: number | undefined;
  const answer = new Promise<Answer>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      firstByteAt ??= performance.now();
      received = Buffer.concat([received, chunk]);
      const head = received.indexOf('\r\n\r\n');
      if (head < 0) return;
      const headers = received.subarray(0, head).toString('latin1');
      const bodyLength = Number(/\r\ncontent-length: *(\d+)/i.exec(headers)?.[1]);
      if (received.length < head + 4 + bodyLength) return;
      resolve({
        status: Number(headers.split(' ')[1]),
        body: JSON.parse(received.subarray(head + 4, head + 4 + bodyLength).toString('utf8')),
        at: firstByteAt,
      });
    });
    socket.on('close', () => reject(new Error(`the connection closed without an answer: ${received.toString('latin1').slice(0, 200)}`)));
  });
  let answered = false;
  answer.then(
    () => (answered = true),
    () => {},
  );
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const chunked = options.contentLength === undefined;
  return {
    answer,
    closed,
    answered: () => answered,
    /** Sends `bytes`; resolves with the time the socket took them (or was gone). */
    send: (bytes: Buffer) =>
      new Promise<number>((resolve) => {
        if (socket.destroyed) return resolve(performance.now());
        if (chunked) socket.write(`${bytes.length.toString(16)}\r\n`);
        socket.write(bytes);
        socket.write(chunked ? '\r\n' : '', () => resolve(performance.now()));
      }),
    /** Ends a chunked body (without half-closing the socket: Node would drop the request). */
    finish: () => {
      if (chunked && !socket.destroyed) socket.write('0\r\n\r\n');
    },
    destroy: () => socket.destroy(),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `promise`, or a failure naming what did not happen within `ms`. */
export const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`${what} within ${ms} ms`)))]);

/** One upload of `body`: its status once it is answered and its body sent in full or cut off. */
export async function uploadOnce(baseUrl: string, key: string, path: string, body: Buffer): Promise<number> {
  const upload = openUpload(baseUrl, key, path);
  const sent = upload.send(body).then(() => upload.finish());
  try {
    const answer = await within(upload.answer, 30_000, 'an answer');
    await within(Promise.race([sent, upload.closed]), 30_000, 'the body sent or cut off');
    return answer.status;
  } finally {
    upload.destroy();
  }
}
