import * as fs from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import type { TemporalSecurity } from '../config/settings.ts';

/**
 * The connection options for an external Temporal cluster or Temporal Cloud, shared by the
 * client (`Connection`) and the worker (`NativeConnection`): TLS with the system roots or
 * `TEMPORAL_TLS_CA_FILE`, mTLS with `TEMPORAL_TLS_CERT_FILE`/`TEMPORAL_TLS_KEY_FILE`, and a
 * Temporal Cloud API key. The dev server gets none of them.
 */
export function temporalConnectionOptions(security: TemporalSecurity | undefined): { tls?: TLSConfig | boolean; apiKey?: string } {
  if (!security?.tls) return {};
  const read = (file: string) => new Uint8Array(fs.readFileSync(file));
  const tls: TLSConfig = {
    ...(security.serverName ? { serverNameOverride: security.serverName } : {}),
    ...(security.caFile ? { serverRootCACertificate: read(security.caFile) } : {}),
    ...(security.certFile && security.keyFile ? { clientCertPair: { crt: read(security.certFile), key: read(security.keyFile) } } : {}),
  };
  return { tls: Object.keys(tls).length > 0 ? tls : true, ...(security.apiKey ? { apiKey: security.apiKey } : {}) };
}
