import type { RunState } from './states.ts';

/**
 * Product event kinds of the run engine. `run.<state>` is written with every state change in
 * the same transaction; the model-progress kinds are what the console shows as "Model call
 * started" and "Model retry scheduled".
 */
export const runStateEventKind = (state: RunState) => `run.${state}` as const;

export const EVENT_KINDS = {
  sessionCreated: 'session.created',
  sessionInputQueued: 'session.input_queued',
  sessionInputWithdrawn: 'session.input_withdrawn',
  sessionUpdated: 'session.updated',
  sessionArchived: 'session.archived',
  sessionDeleted: 'session.deleted',
  runCancellationRequested: 'run.cancellation_requested',
  messageCreated: 'message.created',
  modelCallStarted: 'model.call_started',
  modelRetryScheduled: 'model.retry_scheduled',
  modelInvocationFailed: 'model.invocation_failed',
  skillLoaded: 'skill.loaded',
  contextCompacted: 'context.compacted',
  delegationRunQueued: 'delegation.run_queued',
  delegationRunSettled: 'delegation.run_settled',
  delegationClosed: 'delegation.closed',
} as const;
