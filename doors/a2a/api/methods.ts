import type { Scope } from '../../../domain/scopes.ts';

/** Each A2A method's scopes, as the native routes of the same verbs need them (an answer's own verbs add theirs). */
export const METHOD_SCOPES: Record<string, Scope[]> = {
  SendMessage: ['session:write', 'run:create'],
  SendStreamingMessage: ['session:write', 'run:create'],
  GetTask: ['session:read', 'run:read'],
  ListTasks: ['session:read', 'run:read'],
  SubscribeToTask: ['session:read', 'run:read'],
  CancelTask: ['session:write', 'run:cancel'],
};
