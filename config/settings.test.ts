import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { warnOfDeprecatedSettings, parseSettings } from './settings.ts';

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
      outboundAllowPrivateNetwork: false,
      temporal: { address: undefined, namespace: 'default', taskQueue: 'agent-runtime' },
    });
    expect(settings.dataDir).toMatch(/\.data$/);
  });

  it('bounds concurrent event streams per caller and per project, 0 switching a bound off', () => {
    expect(parseSettings({}).limits).toMatchObject({ eventStreamsPerPrincipal: 16, eventStreamsPerProject: 256 });
    expect(parseSettings({ SVC_EVENT_STREAMS_PER_PRINCIPAL: '0', SVC_EVENT_STREAMS_PER_PROJECT: '4' }).limits).toMatchObject({
      eventStreamsPerPrincipal: null,
      eventStreamsPerProject: 4,
    });
    expect(() => parseSettings({ SVC_EVENT_STREAMS_PER_PRINCIPAL: '-1' })).toThrow(/SVC_EVENT_STREAMS_PER_PRINCIPAL/);
    expect(() => parseSettings({ SVC_EVENT_STREAMS_PER_PROJECT: 'many' })).toThrow(/SVC_EVENT_STREAMS_PER_PROJECT/);
  });

  it('gathers webhook batches for 10 ms unless told otherwise, within 0-1000 ms', () => {
    expect(parseSettings({}).webhookBatchGatherMs).toBe(10);
    expect(parseSettings({ SVC_WEBHOOK_BATCH_GATHER_MS: '0' }).webhookBatchGatherMs).toBe(0);
    for (const bad of ['-1', '1001', '2.5', 'soon'])
      expect(() => parseSettings({ SVC_WEBHOOK_BATCH_GATHER_MS: bad }), bad).toThrow(/SVC_WEBHOOK_BATCH_GATHER_MS/);
  });

  it('drains for no time unless told, within a minute; serves metrics and probes on an operator port only where it is given one', () => {
    expect(parseSettings({}).shutdownGraceMs).toBe(0);
    expect(parseSettings({ SVC_SHUTDOWN_GRACE_MS: '5000' }).shutdownGraceMs).toBe(5000);
    for (const bad of ['-1', '60001', 'soon']) expect(() => parseSettings({ SVC_SHUTDOWN_GRACE_MS: bad }), bad).toThrow(/SVC_SHUTDOWN_GRACE_MS/);
    expect(parseSettings({}).workerMetricsPort).toBeNull();
    expect(parseSettings({ SVC_WORKER_METRICS_PORT: '9464' }).workerMetricsPort).toBe(9464);
    for (const bad of ['-1', '65536', 'http']) expect(() => parseSettings({ SVC_WORKER_METRICS_PORT: bad }), bad).toThrow(/SVC_WORKER_METRICS_PORT/);
    expect(parseSettings({}).apiMetricsPort).toBeNull();
    expect(parseSettings({ SVC_API_METRICS_PORT: '9465' }).apiMetricsPort).toBe(9465);
    for (const bad of ['-1', '65536', 'http']) expect(() => parseSettings({ SVC_API_METRICS_PORT: bad }), bad).toThrow(/SVC_API_METRICS_PORT/);
  });

  it('names every bad variable', () => {
    expect(() => parseSettings({ PORT: 'eighty', SVC_ENVIRONMENT: 'staging' })).toThrow(/PORT[\s\S]*SVC_ENVIRONMENT|SVC_ENVIRONMENT[\s\S]*PORT/);
    expect(() => parseSettings({ SVC_APP_ORIGIN: 'http://localhost:8080/app' })).toThrow(/SVC_APP_ORIGIN/);
  });

  it('refuses unsafe production settings', () => {
    const key = randomBytes(32).toString('base64');
    expect(() => parseSettings({ SVC_ENVIRONMENT: 'production', SVC_CREDENTIAL_ENCRYPTION_KEY: key, SVC_AUTH_MODE: 'development' })).toThrow(/SVC_AUTH_MODE/);
    expect(() => parseSettings({ SVC_ENVIRONMENT: 'production', SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' })).toThrow(
      /SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK is refused/,
    );
    expect(() => parseSettings({ SVC_ENVIRONMENT: 'production', SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK: 'true' })).toThrow(
      /SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK is refused/,
    );
    expect(() => parseSettings({ SVC_ENVIRONMENT: 'production', SVC_AUTH_MODE: 'hosted' })).toThrow(/SVC_CREDENTIAL_ENCRYPTION_KEY/);
  });

  it('names the private-network switch for every outbound destination, and still reads its old name with a deprecation line', () => {
    expect(parseSettings({})).toMatchObject({ outboundAllowPrivateNetwork: false, deprecations: [] });
    expect(parseSettings({ SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' })).toMatchObject({ outboundAllowPrivateNetwork: true, deprecations: [] });
    const old = parseSettings({ SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK: 'true' });
    expect(old).toMatchObject({
      outboundAllowPrivateNetwork: true,
      deprecations: [
        'SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORK is deprecated: set SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK instead (it governs every outbound destination)',
      ],
    });
    const warned: string[] = [];
    warnOfDeprecatedSettings(old, { warn: (line: string) => warned.push(line) });
    expect(warned).toEqual(old.deprecations);
  });

  it('refuses development sign-in on a non-loopback address unless SVC_DEVELOPMENT_ALLOW_REMOTE says so', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.20', '10.0.0.5', 'agents.example.com', '[::]']) {
      expect(() => parseSettings({ HOST: host }), host).toThrow(/HOST=.*SVC_AUTH_MODE=development[\s\S]*SVC_DEVELOPMENT_ALLOW_REMOTE=true/);
      expect(parseSettings({ HOST: host, SVC_DEVELOPMENT_ALLOW_REMOTE: 'true' }).developmentAllowRemote, host).toBe(true);
    }
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost', 'LOCALHOST', 'api.localhost', 'localhost.']) {
      expect(parseSettings({ HOST: host }).host, host).toBe(host);
    }
    expect(parseSettings({}).developmentAllowRemote).toBe(false);
    // Other sign-in modes may listen anywhere.
    expect(
      parseSettings({
        HOST: '0.0.0.0',
        SVC_AUTH_MODE: 'hosted',
        SVC_OIDC_ISSUER: 'https://login.example.com',
        SVC_OIDC_CLIENT_ID: 'a',
        SVC_INITIAL_OWNER_SUBJECT: 'b',
      }).host,
    ).toBe('0.0.0.0');
    expect(() => parseSettings({ HOST: '0.0.0.0', SVC_DEVELOPMENT_ALLOW_REMOTE: 'yes' })).toThrow(/SVC_DEVELOPMENT_ALLOW_REMOTE/);
    const production = {
      SVC_ENVIRONMENT: 'production',
      SVC_CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SVC_APP_ORIGIN: 'https://agents.example.com',
      SVC_AUTH_MODE: 'hosted',
      SVC_OIDC_ISSUER: 'https://login.example.com',
      SVC_OIDC_CLIENT_ID: 'a',
      SVC_INITIAL_OWNER_SUBJECT: 'b',
    };
    expect(() => parseSettings({ ...production, SVC_DEVELOPMENT_ALLOW_REMOTE: 'true' })).toThrow(
      /SVC_DEVELOPMENT_ALLOW_REMOTE is refused when SVC_ENVIRONMENT=production/,
    );
  });

  it('refuses an incomplete production start with one line per missing item', () => {
    let message = '';
    try {
      parseSettings({ SVC_ENVIRONMENT: 'production', SVC_AUTH_MODE: 'edge_proxy' });
    } catch (error) {
      message = (error as Error).message;
    }
    const lines = message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
    expect(lines).toEqual([
      'SVC_CREDENTIAL_ENCRYPTION_KEY is required when SVC_ENVIRONMENT=production',
      'SVC_APP_ORIGIN must be an https:// origin when SVC_ENVIRONMENT=production',
      expect.stringMatching(/^SVC_EDGE_ISSUER is required/),
      expect.stringMatching(/^SVC_EDGE_AUDIENCE is required/),
      expect.stringMatching(/^SVC_EDGE_JWKS_URL or SVC_EDGE_PUBLIC_KEYS_FILE is required/),
    ]);
    expect(() => parseSettings({ SVC_AUTH_MODE: 'hosted' })).toThrow(/SVC_OIDC_ISSUER[\s\S]*SVC_OIDC_CLIENT_ID[\s\S]*SVC_INITIAL_OWNER_SUBJECT/);
    expect(() => parseSettings({ SVC_AUTH_MODE: 'edge_proxy', SVC_EDGE_ALGORITHMS: 'HS256' })).toThrow(/SVC_EDGE_ALGORITHMS/);
    expect(() => parseSettings({ SVC_AUTH_MODE: 'edge_proxy', SVC_EDGE_ALGORITHMS: 'none' })).toThrow(/SVC_EDGE_ALGORITHMS/);
  });

  it('starts in production with complete settings for each mode', () => {
    const production = {
      SVC_ENVIRONMENT: 'production',
      SVC_CREDENTIAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SVC_APP_ORIGIN: 'https://agents.example.com',
    };
    const edge = parseSettings({
      ...production,
      SVC_AUTH_MODE: 'edge_proxy',
      SVC_EDGE_ISSUER: 'https://cloud.google.com/iap',
      SVC_EDGE_AUDIENCE: '/projects/1/global/backendServices/2',
      SVC_EDGE_JWKS_URL: 'https://www.gstatic.com/iap/verify/public_key-jwk',
      SVC_EDGE_ASSERTION_HEADER: 'X-Goog-IAP-JWT-Assertion',
    });
    expect(edge.edgeProxy).toMatchObject({ algorithms: ['ES256', 'RS256'], assertionHeader: 'x-goog-iap-jwt-assertion', clockSkewSeconds: 30 });
    const hosted = parseSettings({
      ...production,
      SVC_AUTH_MODE: 'hosted',
      SVC_OIDC_ISSUER: 'https://login.example.com',
      SVC_OIDC_CLIENT_ID: 'agents',
      SVC_INITIAL_OWNER_SUBJECT: 'abc',
    });
    expect(hosted.hosted).toMatchObject({ redirectUri: 'https://agents.example.com/v1/auth/callback', sessionMinutes: 60 });
    expect(hosted.refreshLifetimeDays).toBe(400);
    expect(() =>
      parseSettings({
        ...production,
        SVC_AUTH_MODE: 'hosted',
        SVC_OIDC_ISSUER: 'http://login.example.com',
        SVC_OIDC_CLIENT_ID: 'a',
        SVC_INITIAL_OWNER_SUBJECT: 'b',
      }),
    ).toThrow(/SVC_OIDC_ISSUER must be https/);
  });

  it('keeps sessions and events for good unless a retention window is set, sweeping every 5 minutes in batches of 200', () => {
    expect(parseSettings({}).retention).toEqual({ sessionsMinutes: null, eventsMinutes: null, sweepIntervalMs: 300_000, batchSize: 200 });
    expect(
      parseSettings({ SVC_RETENTION_SESSIONS: '30d', SVC_RETENTION_EVENTS: '12h', SVC_RETENTION_SWEEP_INTERVAL_SECONDS: '60', SVC_RETENTION_BATCH_SIZE: '500' })
        .retention,
    ).toEqual({
      sessionsMinutes: 30 * 1440,
      eventsMinutes: 720,
      sweepIntervalMs: 60_000,
      batchSize: 500,
    });
    expect(parseSettings({ SVC_RETENTION_SESSIONS: '1m', SVC_RETENTION_EVENTS: 'off' }).retention).toMatchObject({ sessionsMinutes: 1, eventsMinutes: null });
    for (const bad of ['30', '0d', '1y', '3651d', '-1d', '1.5h', 'forever']) {
      expect(() => parseSettings({ SVC_RETENTION_SESSIONS: bad }), bad).toThrow(/SVC_RETENTION_SESSIONS/);
    }
    expect(() => parseSettings({ SVC_RETENTION_SWEEP_INTERVAL_SECONDS: '5' })).toThrow(/SVC_RETENTION_SWEEP_INTERVAL_SECONDS/);
    expect(() => parseSettings({ SVC_RETENTION_BATCH_SIZE: '0' })).toThrow(/SVC_RETENTION_BATCH_SIZE/);
  });

  it('lets schedules fire every 60 s at the shortest unless set lower (1 to 60: cron fires at most once a minute)', () => {
    expect(parseSettings({}).scheduleMinIntervalSeconds).toBe(60);
    expect(parseSettings({ SVC_SCHEDULE_MIN_INTERVAL_SECONDS: '1' }).scheduleMinIntervalSeconds).toBe(1);
    for (const bad of ['0', '61', '1.5', 'soon'])
      expect(() => parseSettings({ SVC_SCHEDULE_MIN_INTERVAL_SECONDS: bad }), bad).toThrow(/SVC_SCHEDULE_MIN_INTERVAL_SECONDS/);
  });
});
