import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedRoutes } from '../../api/openapi/document.ts';
import { transactionNeedOf } from '../../api/openapi/route-doc.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { idleInTransaction } from '../support/idle-in-transaction.ts';

/**
 * Routes declare their transaction needs beside their verb (`route({ transaction })`,
 * api/openapi/route-doc.ts); the idempotency middleware reads the matched route's declaration and
 * holds no route knowledge of its own. A route declared `deferred` never holds a transaction open
 * while its verb calls out: here MCP discovery against a server that answers nothing until the
 * test lets go. (Turns that upload files: attachment-uploads.test.ts.)
 */
let t: TestApp;
let projectId: string;
let admin: string;
let silent: { url: string; requests: IncomingMessage[]; close(): Promise<void> };

beforeAll(async () => {
  silent = await startSilentServer();
  t = await createTestApp({ env: { SVC_OUTBOUND_ALLOW_PRIVATE_NETWORK: 'true' } });
  projectId = (await t.login()).context.project.id;
  admin = (await t.createApiKey(['*'])).secret;
});
afterAll(async () => {
  await t?.close();
  await silent?.close();
});

async function call(method: string, path: string, body?: unknown) {
  const response = await t.request(method, `/v1/projects/${projectId}${path}`, { apiKey: admin, body });
  return { status: response.status, body: await response.json() };
}

/** A server that takes requests and never answers them until it is closed. */
async function startSilentServer() {
  const requests: IncomingMessage[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((request) => void requests.push(request));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('routes that declare their own transaction', () => {
  it('MCP discovery (deferred) holds no transaction open while the server keeps it waiting', async () => {
    const created = await call('POST', '/mcp-servers', { key: 'silent', displayName: 'Silent', endpointUrl: silent.url, transport: 'streamable_http' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const discovery = call('POST', `/mcp-servers/${created.body.id}/discover`);
    const deadline = Date.now() + 10_000;
    while (silent.requests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(silent.requests.length, 'the discovery never reached the server').toBeGreaterThan(0);

    // On PostgreSQL no connection of this database sits in an open transaction; on PGlite (one
    // connection) a second mutation could not commit if the discovery held one.
    if (t.database.url) expect(await idleInTransaction(t.database.url)).toEqual([]);
    const other = await call('POST', '/mcp-servers', {
      key: 'meanwhile',
      displayName: 'Meanwhile',
      endpointUrl: 'http://127.0.0.1:9/mcp',
      transport: 'streamable_http',
    });
    expect(other.status, JSON.stringify(other.body)).toBe(201);

    await silent.close();
    const answered = await discovery;
    expect(answered.status).toBe(400);
    expect(answered.body.error.message).toMatch(/^Discovery failed/);
  }, 60_000);

  it('declares a deferred transaction exactly where a verb calls out before it writes', () => {
    const need = (method: string, path: string, body: unknown) => {
      const route = documentedRoutes(t.app.routes).documented.find((entry) => entry.method === method && entry.path === path);
      if (!route) throw new Error(`no route ${method} ${path}`);
      return transactionNeedOf(route.doc, body === undefined ? '' : JSON.stringify(body));
    };
    const files = { message: 'Read it', files: [{ name: 'a.txt', contentType: 'text/plain', dataBase64: 'YQ==' }] };
    for (const turn of ['/v1/projects/:projectId/sessions', '/v1/projects/:projectId/sessions/:sessionId/runs', '/v1/projects/:projectId/runs/:runId/resume']) {
      expect(need('POST', turn, files), turn).toBe('deferred');
      expect(need('POST', turn, { message: 'No files' }), turn).toBe('eager');
      expect(need('POST', turn, { message: 'No files', files: [] }), turn).toBe('eager');
    }
    expect(need('POST', '/v1/projects/:projectId/mcp-servers/:serverId/discover', undefined)).toBe('deferred');
    // A fork may copy a workspace backup before it writes.
    expect(need('POST', '/v1/projects/:projectId/sessions/:sessionId/fork', { fromRunId: 'x' })).toBe('deferred');
    const deferred = documentedRoutes(t.app.routes).documented.filter(
      ({ doc }) => doc.transaction !== undefined && doc.transaction !== 'eager' && doc.transaction !== 'none',
    );
    expect(deferred.map(({ method, path }) => `${method} ${path}`).sort()).toEqual([
      'POST /v1/projects/:projectId/mcp-servers/:serverId/discover',
      'POST /v1/projects/:projectId/runs/:runId/resume',
      // "Run now" asks Temporal for the firing before it writes its audit entry.
      'POST /v1/projects/:projectId/schedules/:scheduleId/trigger',
      'POST /v1/projects/:projectId/sessions',
      'POST /v1/projects/:projectId/sessions/:sessionId/fork',
      'POST /v1/projects/:projectId/sessions/:sessionId/runs',
      'POST /v1/projects/:projectId/uploads',
    ]);
  });
});
