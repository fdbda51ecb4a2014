import { ApplicationFailure } from '@temporalio/activity';
import { DomainError } from '../domain/errors.ts';
import { withoutStatementParameters } from '../domain/statement-errors.ts';

/**
 * The one place activity errors are classified (domain/runs/runtime-failures.ts): a domain error
 * becomes a non-retryable `ApplicationFailure` typed by its code, with its message, which is safe
 * to show; every other error stays retryable, so Temporal retries it under the step's policy. A
 * failed statement's error is recorded in the run's history without its parameters (a caller's
 * text: domain/statement-errors.ts), as the logger writes it.
 */
export function toActivityFailure(error: unknown): unknown {
  if (error instanceof DomainError) return ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: true });
  if (error instanceof Error) return withoutStatementParameters(error);
  return error;
}

type ActivityMap = Record<string, (...args: never[]) => Promise<unknown>>;

/** Wraps every activity of `activities` so what it throws goes through `toActivityFailure`. */
export function classifyFailures<T extends ActivityMap>(activities: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      try {
        return await activity(...args);
      } catch (error) {
        throw toActivityFailure(error);
      }
    };
  }
  return wrapped as T;
}
