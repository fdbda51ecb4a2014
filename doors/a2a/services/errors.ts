import { A2AError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { DomainError } from '../../../domain/errors.ts';
import type { Logger } from '../../../config/logger.ts';

/**
 * Our errors as the A2A errors the SDK's bindings render (docs/decisions/a2a-door.md): a bad
 * request is `InvalidParams` (-32602, HTTP 400), a conflict with the conversation's state an
 * `UnsupportedOperation` (-32004); what is not ours to explain is an internal error whose message
 * names only the request id (the cause goes to the log).
 */
export function toA2AError(error: unknown, context: { requestId: string; logger: Logger }): A2AError {
  if (error instanceof A2AError) return error;
  if (error instanceof DomainError) {
    switch (error.code) {
      case 'bad_request':
      case 'cursor_expired':
        return new RequestMalformedError(error.message);
      case 'not_found':
        return new RequestMalformedError(error.message);
      case 'conflict':
      case 'idempotency_conflict':
      case 'forbidden':
        return new UnsupportedOperationError(error.message);
      case 'rate_limited':
      case 'service_unavailable':
      case 'unauthenticated':
        return new A2AError(error.message);
      case 'internal_error':
        break;
    }
  }
  context.logger.error('the A2A door failed', { err: error, requestId: context.requestId });
  return new A2AError(`Internal error (request ${context.requestId})`);
}

export const taskNotFound = () => new TaskNotFoundError('No task with that id for this agent and API key');
