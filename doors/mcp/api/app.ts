import { randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AppDeps, Facade } from '../../../api/deps.ts';
import type { AppEnv } from '../../../api/env.ts';
import { rateLimit } from '../../../api/middleware/rate-limit.ts';
import { doorAuthenticate } from '../../shared/authenticate.ts';
import { handleMcpError } from './errors.ts';
import { createInFlightCalls, type InFlightCalls } from './in-flight.ts';
import { agentToolServer } from './server.ts';

/**
 * The connection id header. The door keeps no MCP session, but hands out an id on each answer to
 * a request without one (the client's first, `initialize`): clients send it back on every request,
 * which names the connection a `notifications/cancelled` comes from (in-flight.ts).
 */
const SESSION_HEADER = 'mcp-session-id';
const CONNECTION_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The door's one path, `/mcp/{projectId}` with a UUID: anything else under `/mcp` is not the
 * door's and falls through (the console's own `/mcp` screen is a page of the browser app).
 */
const PROJECT = '/:projectId{[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}}';

/**
 * The MCP server door (doors/mcp/README.md): a project's agents as the tools of a Streamable
 * HTTP MCP server at `/mcp/{projectId}`, authenticated with our API keys. Stateless: each POST
 * gets a new server and transport, answered as an SSE stream (progress notifications while the
 * agent writes, then the result). GET (a standing stream) and DELETE (ending a session) are 405:
 * there is no session to stream to or to end. Off (`SVC_MCP_SERVER=false`), every path is the
 * server's plain 404, as if the module were not mounted.
 */
export function mcpDoorApp(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.onError(handleMcpError);
  // Off, the door claims no path: requests fall through to the rest of the server (a POST is its 404).
  if (!deps.settings.doors.mcp) return app;
  const inFlight = createInFlightCalls();
  app.use(PROJECT, doorAuthenticate(deps, 'mcp'));
  app.use(PROJECT, rateLimit(deps.settings.limits, deps.clock));
  app.post(PROJECT, (c) => serveRequest(c, deps, inFlight));
  app.on(['GET', 'DELETE'], PROJECT, (c) => {
    c.header('Allow', 'POST');
    return c.json(
      { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; send every message with POST' }, id: null },
      405,
    );
  });
  return app;
}

async function serveRequest(c: Context<AppEnv>, deps: AppDeps, inFlight: InFlightCalls): Promise<Response> {
  const sent = c.req.header(SESSION_HEADER);
  const connectionId = sent !== undefined && CONNECTION_ID.test(sent) ? sent : randomUUID();
  const server = agentToolServer(c, deps, { inFlight, connectionId });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false });
  await server.connect(transport);
  // The client went away (the stream closed): closing the server aborts its handlers, which
  // cancel the runs they follow.
  const { signal } = c.req.raw;
  // Gone before it was read: nothing is started, and nobody reads the answer (nginx's 499).
  if (signal.aborted) return new Response(null, { status: 499 });
  signal.addEventListener('abort', () => void server.close(), { once: true });
  const response = await transport.handleRequest(c.req.raw);
  response.headers.set(SESSION_HEADER, connectionId);
  return response;
}

/** The door's mount: `/mcp/{projectId}`. */
export const mcpDoor: Facade = { path: '/mcp', routes: mcpDoorApp };
