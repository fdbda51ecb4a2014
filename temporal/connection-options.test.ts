import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSettings } from '../config/settings.ts';
import { temporalConnectionOptions } from './connection-options.ts';

describe('connection options for an external Temporal', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-tls-'));
  const file = (name: string, text: string) => {
    const target = path.join(dir, name);
    fs.writeFileSync(target, text);
    return target;
  };

  it('the dev server (no settings) gets plain options', () => {
    expect(temporalConnectionOptions(parseSettings({}).temporal.security)).toEqual({});
  });

  it('mTLS reads the client pair and the CA; an API key means TLS', () => {
    const settings = parseSettings({
      TEMPORAL_ADDRESS: 'my-namespace.a1b2c.tmprl.cloud:7233',
      TEMPORAL_TLS_CERT_FILE: file('client.pem', 'CERT'),
      TEMPORAL_TLS_KEY_FILE: file('client.key', 'KEY'),
      TEMPORAL_TLS_CA_FILE: file('ca.pem', 'CA'),
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    const options = temporalConnectionOptions(settings.temporal.security);
    expect(options.tls).toEqual({
      serverNameOverride: 'temporal.internal',
      serverRootCACertificate: new Uint8Array(Buffer.from('CA')),
      clientCertPair: { crt: new Uint8Array(Buffer.from('CERT')), key: new Uint8Array(Buffer.from('KEY')) },
    });
    const cloud = parseSettings({ TEMPORAL_ADDRESS: 'us-east-1.aws.api.temporal.io:7233', TEMPORAL_API_KEY: 'tcld-api-key-0001' });
    expect(temporalConnectionOptions(cloud.temporal.security)).toEqual({ tls: true, apiKey: 'tcld-api-key-0001' });
  });

  it('refuses half a client pair and TLS settings without an address', () => {
    expect(() => parseSettings({ TEMPORAL_ADDRESS: 'x:7233', TEMPORAL_TLS_CERT_FILE: 'c.pem' })).toThrow(
      /TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE go together/,
    );
    expect(() => parseSettings({ TEMPORAL_API_KEY: 'k' })).toThrow(/set TEMPORAL_ADDRESS too/);
  });
});
