import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

const PROMPT = 'my very private prompt';

function captured() {
  const lines: string[] = [];
  return { lines, logger: createLogger({ level: 'debug', sink: (line) => lines.push(line) }) };
}

/** What postgres.js throws for a statement the server refused: the parameters ride along. */
function serverError(message: string, code: string) {
  const error = Object.assign(new Error(message), { name: 'PostgresError', code });
  Object.defineProperty(error, 'parameters', { value: [PROMPT], enumerable: false });
  return error;
}

describe('the logger never writes a failed statement’s parameters', () => {
  it('keeps the SQL and the SQLSTATE of a failed statement, not its parameters (message, stack, cause)', () => {
    const { lines, logger } = captured();
    const cause = serverError(`invalid input syntax for type uuid: "${PROMPT}"`, '22P02');
    logger.error('request failed', { err: new DrizzleQueryError('insert into "runs" ("input_public") values ($1)', [PROMPT, { message: PROMPT }], cause) });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(PROMPT);
    const { err } = JSON.parse(lines[0]!);
    expect(err.message).toBe('Failed query: insert into "runs" ("input_public") values ($1)');
    expect(err.stack).toMatch(/^Error: Failed query: insert into "runs"[^\n]*\n\s+at /);
    expect(err.cause).toMatchObject({ name: 'PostgresError', code: '22P02', message: 'invalid input syntax for type uuid: "(value not logged)"' });
  });

  it('does the same for a child logger’s fields and leaves other errors as they were', () => {
    const { lines, logger } = captured();
    logger.child({ err: new DrizzleQueryError('select $1', [PROMPT]) }).warn('first');
    logger.info('second', { err: new TypeError('plain "quoted" text'), count: 2 });
    expect(lines[0]).not.toContain(PROMPT);
    expect(JSON.parse(lines[1]!)).toMatchObject({
      msg: 'second',
      count: 2,
      err: { name: 'TypeError', message: 'plain "quoted" text', stack: expect.stringContaining('TypeError: plain') },
    });
  });
});
