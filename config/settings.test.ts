import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSettings } from './settings.ts';

describe('parseSettings', () => {
  it('applies the documented defaults', () => {
    const settings = parseSettings({});
    expect(settings).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: undefined,
      environment: 'development',
      authMode: 'development',
      appOrigin: 'http://localhost:8080',
      webhooksAllowPrivateNetwork: false,
      temporal: { address: undefined, namespace: 'default', taskQueue: 'agent-runtime' },
    });
    expect(settings.dataDir).toMatch(/\.data$/);
  });

  it('names every bad variable', () => {
    expect(() => parseSettings({ PORT: 'eighty', SVC_ENVIRONMENT: 'staging' })).toThrow(/PORT[\s\S]*SVC_ENVIRONMENT|SVC_ENVIRONMENT[\s\S]*PORT/);
    expect(() => parseSettings({ SVC_APP_ORIGIN: 'http://localhost:8080/app' })).toThrow(/SVC_APP_ORIGIN/);
  });

  it('refuses unsafe production settings', () => {
    const key = randomBytes(32).toString('base64');
    expect(() => parseSettings({ SVC_ENVIRONMENT: 'production', SVC_CREDENTIAL_ENCRYPTION_KEY: key, SVC_AUTH_MODE: 'development' })).toThrow(/SVC_AUTH_MODE/);
    expect(() => parseSettings({ SVC_ENVIRONMENT: 'production', SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK: 'true' })).toThrow(/SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK/);
    expect(() => parseSettings({ SVC_ENVIRONMENT: 'production', SVC_AUTH_MODE: 'hosted' })).toThrow(/SVC_CREDENTIAL_ENCRYPTION_KEY/);
  });
});
