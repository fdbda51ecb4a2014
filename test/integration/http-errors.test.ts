import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp, type TestResponse } from '../support/app.ts';

let t: TestApp;
let adminKey: string;
let projectId: string;

beforeAll(async () => {
  t = await createTestApp();
  adminKey = (await t.createApiKey(['*'])).secret;
  projectId = (await t.login()).context.project.id;
});
afterAll(() => t.close());

async function expectEnvelope(response: TestResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  const requestId = response.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  const body = (await response.json()) as { error: { code: string; message: string; requestId: string } };
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.error.requestId).toBe(requestId);
  return body.error;
}

describe('error envelope', () => {
  it('bad_request 400', async () => {
    await expectEnvelope(await t.request('POST', '/v1/projects', { apiKey: adminKey, body: { slug: 'Not A Slug', name: 'x' } }), 400, 'bad_request');
  });
  it('unauthenticated 401', async () => {
    await expectEnvelope(await t.request('GET', '/v1/context'), 401, 'unauthenticated');
  });
  it('forbidden 403', async () => {
    const { secret } = await t.createApiKey(['agent:read']);
    await expectEnvelope(await t.request('GET', '/v1/projects', { apiKey: secret }), 403, 'forbidden');
  });
  it('not_found 404', async () => {
    await expectEnvelope(await t.request('GET', '/v1/no-such-route', { apiKey: adminKey }), 404, 'not_found');
  });
  it('conflict 409', async () => {
    await t.request('POST', '/v1/projects', { apiKey: adminKey, body: { slug: 'dup', name: 'Dup' } });
    await expectEnvelope(await t.request('POST', '/v1/projects', { apiKey: adminKey, body: { slug: 'dup', name: 'Dup again' } }), 409, 'conflict');
  });
  it('idempotency_conflict 409', async () => {
    await t.request('POST', '/v1/projects', { apiKey: adminKey, idempotencyKey: 'k-env', body: { slug: 'env-a', name: 'A' } });
    await expectEnvelope(
      await t.request('POST', '/v1/projects', { apiKey: adminKey, idempotencyKey: 'k-env', body: { slug: 'env-b', name: 'B' } }),
      409,
      'idempotency_conflict',
    );
  });
  it('x-request-id is on every response and a safe incoming id is kept', async () => {
    const ok = await t.request('GET', '/v1/context', { apiKey: adminKey, headers: { 'x-request-id': 'trace-abcdef-123' } });
    expect(ok.headers.get('x-request-id')).toBe('trace-abcdef-123');
    const unsafe = await t.request('GET', '/v1/context', { apiKey: adminKey, headers: { 'x-request-id': 'bad id\u0001' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const error = await t.request('GET', '/v1/context', { headers: { 'x-request-id': 'trace-unauth-77' } });
    expect((await expectEnvelope(error, 401, 'unauthenticated')).requestId).toBe('trace-unauth-77');
  });
  it('logs one JSON line per request with its request id, and no secret', async () => {
    await t.request('GET', '/v1/context', { apiKey: adminKey, headers: { 'x-request-id': 'trace-logline-42' } });
    const lines = t.logLines.map((line) => JSON.parse(line)).filter((line) => line.requestId === 'trace-logline-42');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'request', method: 'GET', status: 200, route: '/v1/context' });
    expect(t.logLines.join('\n')).not.toContain(adminKey);
  });
});

describe('malformed bodies never produce a 500', () => {
  const cases: Array<[string, { rawBody?: string; body?: unknown; headers?: Record<string, string> }]> = [
    ['truncated JSON', { rawBody: '{"slug": "a"' }],
    ['not JSON at all', { rawBody: 'slug=a&name=b' }],
    ['JSON array', { body: [1, 2] }],
    ['JSON string', { body: 'hello' }],
    ['JSON null', { rawBody: 'null' }],
    ['empty body', { rawBody: '' }],
    ['wrong type for slug', { body: { slug: 42, name: 'x' } }],
    ['wrong type for name', { body: { slug: 'ok-slug', name: { nested: true } } }],
    ['unknown field', { body: { slug: 'ok-slug', name: 'x', extra: 1 } }],
    ['slug too long', { body: { slug: 'a'.repeat(81), name: 'x' } }],
    ['slug with uppercase', { body: { slug: 'Abc', name: 'x' } }],
    ['slug starting with a dash', { body: { slug: '-abc', name: 'x' } }],
    ['missing name', { body: { slug: 'ok-slug' } }],
    ['deeply nested value', { rawBody: '{"slug":' + '['.repeat(5000) + ']'.repeat(5000) + ',"name":"x"}' }],
    ['wrong content type', { rawBody: '{"slug":"ok-slug","name":"x"}', headers: { 'content-type': 'text/plain' } }],
    ['oversized body', { rawBody: JSON.stringify({ slug: 'ok-slug', name: 'x'.repeat(2 * 1024 * 1024) }) }],
    ['invalid UTF-8 escapes', { rawBody: '{"slug":"\\ud800","name":"\\u0000"}' }],
  ];
  for (const [name, input] of cases) {
    it(name, async () => {
      const response = await t.request('POST', '/v1/projects', { apiKey: adminKey, ...input });
      await expectEnvelope(response, 400, 'bad_request');
    });
  }

  it('unknown enum values and wrong types on other routes', async () => {
    const badRole = await t.request('POST', `/v1/projects/${projectId}/api-keys`, { apiKey: adminKey, body: { name: 'k', scopes: ['agent:fly'] } });
    await expectEnvelope(badRole, 400, 'bad_request');
    const badScopes = await t.request('POST', `/v1/projects/${projectId}/api-keys`, { apiKey: adminKey, body: { name: 'k', scopes: 'agent:read' } });
    await expectEnvelope(badScopes, 400, 'bad_request');
    const badLimit = await t.request('GET', '/v1/projects?limit=0', { apiKey: adminKey });
    await expectEnvelope(badLimit, 400, 'bad_request');
    const badCursor = await t.request('GET', '/v1/projects?cursor=%%%', { apiKey: adminKey });
    await expectEnvelope(badCursor, 400, 'bad_request');
    const badUuid = await t.request('GET', '/v1/projects/not-a-uuid/members', { apiKey: adminKey });
    await expectEnvelope(badUuid, 400, 'bad_request');
  });

  it('validation errors name the failing path', async () => {
    const response = await t.request('POST', '/v1/projects', { apiKey: adminKey, body: { slug: 'ok-slug', name: 7 } });
    const error = (await expectEnvelope(response, 400, 'bad_request')) as { details?: { path?: string } };
    expect(error.details?.path).toBe('body.name');
  });
});

describe('internal errors', () => {
  it('answer 500 internal_error with a generic message; the cause is only in the log', async () => {
    const broken = await createTestApp();
    try {
      const key = (await broken.createApiKey(['*'])).secret;
      await broken.database.db.execute(sql`alter table projects rename to projects_moved_away`);
      const response = await broken.request('GET', '/v1/projects', { apiKey: key, headers: { 'x-request-id': 'trace-internal-0001' } });
      const error = await expectEnvelope(response, 500, 'internal_error');
      expect(error.message).toBe('An internal error occurred');
      expect(JSON.stringify(error)).not.toContain('projects');
      const logged = broken.logLines.map((line) => JSON.parse(line)).find((line) => line.msg === 'request failed');
      expect(logged.requestId).toBe('trace-internal-0001');
      expect(JSON.stringify(logged.err)).toContain('projects');
    } finally {
      await broken.close();
    }
  });
});
