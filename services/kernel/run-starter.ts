import type { RunWakeSignal } from '../../domain/runs/workflow.ts';
import type { CredentialKeyring } from './credentials/index.ts';
import type { StorageEndpointPolicy } from '../../adapters/storage/s3-client.ts';

/**
 * How committed runs reach the runtime. Verbs queue these calls with `afterCommit`, so the row
 * always exists first; both calls are idempotent (workflow id `run:<runId>`), and the worker's
 * reconciler starts any queued run whose workflow is missing, so a lost call loses nothing.
 */
export type RunStarter = {
  /** Starts the run's workflow unless it already exists. */
  start(run: { runId: string; projectId: string; sessionId: string; agentId: string }): Promise<void>;
  /** Tells a running workflow that cancellation was requested (no-op when it is not running). */
  requestCancellation(runId: string): Promise<void>;
  /**
   * Wakes a waiting run after a tool result or approval decision was committed. Only a hint: the
   * workflow re-reads Postgres when woken, so a lost signal delays nothing past the next wake or
   * deadline (no-op when the workflow is not running).
   */
  notify(runId: string, signal: RunWakeSignal): Promise<void>;
};

/**
 * What verbs that queue or wake runs need besides their context: the port above and the keyring
 * (attachments are stored under the organization's storage credential).
 */
export type RunStarterDeps = {
  runStarter: RunStarter;
  keyring: CredentialKeyring;
  /**
   * Unsettled runs a project may hold (SVC_PROJECT_UNSETTLED_RUNS_LIMIT) when callers queue runs
   * through the API; absent or null: no quota (a delegated run counts through its coordinator).
   */
  unsettledRunsLimit?: number | null;
  /** Where turn files may be uploaded (adapters/storage/s3-client.ts); absent: public storage endpoints only. */
  storagePolicy?: StorageEndpointPolicy;
};
