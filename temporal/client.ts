import { Client, Connection } from '@temporalio/client';
import type { TemporalSecurity } from '../config/settings.ts';
import type { Tracing } from '../config/tracing.ts';
import { boundedRetries } from './bounded-retries.ts';
import { temporalConnectionOptions } from './connection-options.ts';
import { tracingClientInterceptors } from './tracing.ts';

/**
 * The API process's (and scripts') handle on Temporal: one gRPC connection and the client
 * built on it, closed together.
 */

export type TemporalClientHandle = {
  connection: Connection;
  client: Client;
  close(): Promise<void>;
};

/**
 * Connects to the frontend at `address` (fails if it does not answer) with a client bound to
 * `namespace`; `security` carries TLS and API key settings of an external cluster; with `tracing`,
 * the client's starts and signals carry the active trace context (temporal/tracing.ts).
 */
export async function connectTemporal(options: {
  address: string;
  namespace: string;
  security?: TemporalSecurity;
  tracing?: Tracing | null;
}): Promise<TemporalClientHandle> {
  // Retries that stop at each call's deadline and end with the connection (temporal/bounded-retries.ts).
  const retries = boundedRetries();
  const connection = await Connection.connect({
    address: options.address,
    interceptors: [retries.interceptor],
    ...temporalConnectionOptions(options.security),
  }).catch((error: unknown) => {
    retries.stop();
    throw error;
  });
  const interceptors = tracingClientInterceptors(options.tracing);
  const client = new Client({ connection, namespace: options.namespace, ...(interceptors ? { interceptors } : {}) });
  return {
    connection,
    client,
    close: async () => {
      retries.stop();
      await connection.close();
    },
  };
}
