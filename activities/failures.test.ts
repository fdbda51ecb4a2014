import { ApplicationFailure } from '@temporalio/activity';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '../domain/errors.ts';
import { classifyFailures } from './failures.ts';

const PROMPT = 'my very private prompt';

describe('activity failure classification', () => {
  const activities = classifyFailures({
    gone: async () => {
      throw new NotFoundError('No run with that id');
    },
    refused: async (_input: { state: string }) => {
      throw new ConflictError('A completed run cannot become running');
    },
    invalid: async () => {
      throw new ValidationError('runId must be a UUID');
    },
    unreachable: async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    },
    statement: async () => {
      const cause = Object.assign(new Error(`invalid input syntax for type uuid: "${PROMPT}"`), { name: 'PostgresError', code: '22P02' });
      Object.defineProperty(cause, 'parameters', { value: [PROMPT], enumerable: false });
      throw new DrizzleQueryError('insert into "runs" ("input_public") values ($1)', [PROMPT], cause);
    },
    fine: async (input: { value: number }) => input.value * 2,
  });

  it('turns domain errors into non-retryable failures typed by their code', async () => {
    for (const [call, type] of [
      [() => activities.gone(), 'not_found'],
      [() => activities.refused({ state: 'completed' }), 'conflict'],
      [() => activities.invalid(), 'bad_request'],
    ] as const) {
      const failure = await call().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect(failure).toMatchObject({ type, nonRetryable: true });
    }
  });

  it('leaves other errors as they are, so Temporal retries them', async () => {
    const failure = await activities.unreachable().catch((error: unknown) => error);
    expect(failure).not.toBeInstanceOf(ApplicationFailure);
    expect((failure as Error).message).toContain('ECONNREFUSED');
  });

  it('records a failed statement without its parameters (message, stack, cause), still retryable', async () => {
    const failure = (await activities.statement().catch((error: unknown) => error)) as Error;
    expect(failure).not.toBeInstanceOf(ApplicationFailure);
    expect(failure.message).toBe('Failed query: insert into "runs" ("input_public") values ($1)');
    expect(failure.stack).toMatch(/^Error: Failed query: insert into "runs"[^\n]*\n\s+at /);
    expect(failure.cause).toMatchObject({ name: 'PostgresError', code: '22P02', message: 'invalid input syntax for type uuid: "(value not logged)"' });
    expect(JSON.stringify({ message: failure.message, stack: failure.stack, cause: String((failure.cause as Error).stack) })).not.toContain(PROMPT);
  });

  it('passes results through', async () => {
    expect(await activities.fine({ value: 21 })).toBe(42);
  });
});
