import type { Client } from '@temporalio/client';

/** Readiness probe of Temporal: the frontend answers `GetSystemInfo` for this client's connection. */
export function temporalProbe(client: Client): () => Promise<void> {
  return async () => {
    await client.workflowService.getSystemInfo({});
  };
}
