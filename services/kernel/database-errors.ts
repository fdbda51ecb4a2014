/** Connection failures of postgres.js and of the socket beneath it. */
const CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** The `code`s along an error's `cause` chain (drizzle wraps the driver's error), outermost first. */
export function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

/**
 * Whether `error` means the database could not be reached or refused work for now: a lost or
 * refused connection, a server shutting down or starting (SQLSTATE 57P01-57P03), a connection
 * exception (class 08), too many connections (53300). Such a request may succeed when retried,
 * so the API answers 503 rather than 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return errorCodes(error).some(
    (code) => CONNECTION_CODES.has(code) || code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300',
  );
}

/**
 * Whether `error` is PostgreSQL refusing text it cannot store: a NUL character (SQLSTATE 22021
 * `character_not_in_repertoire`, or 22P05 `untranslatable_character` for `\u0000` in JSON). Only a
 * caller's input carries such text, so the API answers 400.
 */
export function isUnstorableText(error: unknown): boolean {
  return errorCodes(error).some((code) => code === '22021' || code === '22P05');
}

/**
 * Whether `error` is PostgreSQL ending a transaction to break a deadlock (40P01) or a
 * serialization failure (40001): nothing of it was written, and running it again may succeed.
 */
export function isTransientConflict(error: unknown): boolean {
  return errorCodes(error).some((code) => code === '40P01' || code === '40001');
}
