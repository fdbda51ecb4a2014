import { CancelTaskRequest, GetTaskRequest, ListTasksRequest, SendMessageRequest, SubscribeToTaskRequest } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Scope } from '../../../domain/scopes.ts';

/**
 * The A2A methods this door serves: each one's scopes, as the native routes of the same verbs
 * need them (an answer's own verbs add theirs), and the codec of its request.
 */
const METHODS = {
  SendMessage: { scopes: ['session:write', 'run:create'], request: SendMessageRequest },
  SendStreamingMessage: { scopes: ['session:write', 'run:create'], request: SendMessageRequest },
  GetTask: { scopes: ['session:read', 'run:read'], request: GetTaskRequest },
  ListTasks: { scopes: ['session:read', 'run:read'], request: ListTasksRequest },
  SubscribeToTask: { scopes: ['session:read', 'run:read'], request: SubscribeToTaskRequest },
  CancelTask: { scopes: ['session:write', 'run:cancel'], request: CancelTaskRequest },
} satisfies Record<string, { scopes: Scope[]; request: { fromJSON(object: unknown): unknown } }>;

export type ServedMethod = keyof typeof METHODS;

export const isServedMethod = (method: string): method is ServedMethod => Object.hasOwn(METHODS, method);

export const scopesOf = (method: ServedMethod): Scope[] => METHODS[method].scopes;

/**
 * A method's params read by its codec. The SDK's codecs throw on some shapes they cannot read (a
 * `null` part, say): that is the caller's malformed request, never an internal error.
 */
export function decodeParams<M extends ServedMethod>(method: M, params: unknown): ReturnType<(typeof METHODS)[M]['request']['fromJSON']> {
  try {
    return METHODS[method].request.fromJSON(params) as ReturnType<(typeof METHODS)[M]['request']['fromJSON']>;
  } catch {
    throw new RequestMalformedError(`Invalid params: not a ${method} request`);
  }
}
