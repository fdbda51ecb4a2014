import type { Logger } from '../../../config/logger.ts';
import type { RunStarter } from '../../kernel/run-starter.ts';

/**
 * The API's starter when no Temporal starter is wired: it only logs. Nothing is lost, because
 * the worker's reconciler starts every queued run whose workflow is missing (and reads
 * `cancellationRequestedAt` when it does).
 */
export function createLoggingRunStarter(logger: Logger): RunStarter {
  return {
    async start(run) {
      logger.debug('run queued; the worker reconciler will start it', { runId: run.runId, projectId: run.projectId, sessionId: run.sessionId });
    },
    async requestCancellation(runId) {
      logger.debug('run cancellation requested; the workflow reads it when it runs', { runId });
    },
    async notify(runId, signal) {
      logger.debug('run signal not sent; the workflow re-reads its state when it runs', { runId, signal });
    },
  };
}
