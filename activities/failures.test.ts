import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '../domain/errors.ts';
import { classifyFailures } from './failures.ts';

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

  it('passes results through', async () => {
    expect(await activities.fine({ value: 21 })).toBe(42);
  });
});
