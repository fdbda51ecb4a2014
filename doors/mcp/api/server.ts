import type { Context } from 'hono';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type ListToolsResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { DomainError } from '../../../domain/errors.ts';
import { assertHasScopes } from '../../../domain/scopes.ts';
import type { AppDeps } from '../../../api/deps.ts';
import type { AppEnv } from '../../../api/env.ts';
import { safeError } from '../../../api/errors.ts';
import { parseAgentToolArguments } from '../domain/agent-tools.ts';
import { TOOL_NAME_MAX_LENGTH } from '../domain/tool-names.ts';
import { toolErrorOf, toolResultOf } from '../domain/tool-results.ts';
import { findAgentTool, listAgentTools } from '../services/agent-tools.ts';
import { callAgent } from '../services/call-agent.ts';
import { RpcError, rpcCodeOf, rpcErrorOf } from './errors.ts';
import type { InFlightCalls } from './in-flight.ts';

const SERVER_INFO = { name: 'svc-agents', version: '1.0.0' };
const INSTRUCTIONS =
  "Each tool is an agent of this project: call it with a message and it answers after one turn. Pass the sessionId of an answer back to continue that conversation. A run that needs a caller's tool result or an approval answers with an error saying what it waits for.";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * The MCP server of one HTTP request (the door is stateless: app.ts builds one per request, so
 * `tools/list` always shows the agents as they are now). Listing needs `agent:read`; calling
 * needs `session:write` and `run:create`, as opening a session with a message does natively. A
 * refusal of the protocol (scope, unknown tool) is a JSON-RPC error; a refusal of the turn (its
 * arguments, its conversation) and every run that did not complete is a tool error (`isError`),
 * which the model on the other side reads and can act on.
 */
export function agentToolServer(c: Context<AppEnv>, deps: AppDeps, input: { inFlight: InFlightCalls; connectionId: string }): Server {
  const { ctx, actor } = c.var;
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });

  server.setRequestHandler(ListToolsRequestSchema, async (): Promise<ListToolsResult> => {
    try {
      assertHasScopes(actor.scopes, ['agent:read']);
      return { tools: (await listAgentTools({ ctx })).map((entry) => entry.tool) };
    } catch (error) {
      throw rpcErrorOf(error, c);
    }
  });

  async function callTool(params: CallToolRequest['params'], extra: Extra, signal: AbortSignal): Promise<CallToolResult> {
    let agentId: string;
    try {
      assertHasScopes(actor.scopes, ['session:write', 'run:create']);
      const found = await findAgentTool({ ctx, input: { name: params.name } });
      if (!found) {
        const name = params.name.slice(0, TOOL_NAME_MAX_LENGTH);
        throw new RpcError(rpcCodeOf('bad_request'), `Unknown tool "${name}": tools/list names the agents of this project`, {
          code: 'not_found',
          requestId: c.get('requestId'),
        });
      }
      agentId = found.agent.id;
    } catch (error) {
      throw rpcErrorOf(error, c);
    }
    const args = parseAgentToolArguments(params.arguments);
    if (!args.ok) return toolErrorOf(args.message);
    if (signal.aborted) return toolErrorOf('The call was cancelled before it started a run');
    // A call follows its run as a stream does: it takes one of the process's stream places (or is
    // refused before any run starts), given back when the call ends.
    let releasePlace: () => void;
    try {
      releasePlace = deps.eventStreamPlaces(actor);
    } catch (error) {
      throw rpcErrorOf(error, c);
    }
    const progress = progressOf(extra, params._meta?.progressToken);
    try {
      const outcome = await callAgent({
        ctx,
        deps,
        input: { agentId, sessionId: args.value.sessionId ?? null, message: args.value.message },
        signal,
        onText: progress.text,
      });
      await progress.flush();
      return toolResultOf(outcome);
    } catch (error) {
      const refusal = turnRefusalOf(error, args.value.sessionId !== undefined);
      if (refusal) return toolErrorOf(refusal);
      throw rpcErrorOf(error, c);
    } finally {
      releasePlace();
    }
  }

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    // Tracked from the start: a cancellation that comes while the agent is looked up still counts.
    const call = input.inFlight.track({ principalId: actor.principalId, connectionId: input.connectionId, requestId: extra.requestId });
    try {
      return await callTool(request.params, extra, AbortSignal.any([extra.signal, call.signal]));
    } finally {
      call.done();
    }
  });

  // The SDK's own handler knows only this server's requests; a client cancels in a request of its own.
  server.setNotificationHandler(CancelledNotificationSchema, (notification) => {
    const { requestId, reason } = notification.params;
    if (requestId === undefined) return;
    input.inFlight.cancel({ principalId: actor.principalId, connectionId: input.connectionId, requestId }, reason ?? 'cancelled by the client');
  });

  server.onerror = (error) => c.var.logger.debug('mcp door: protocol error', { err: error, requestId: c.get('requestId') });
  return server;
}

/**
 * Progress notifications from the reply being written: `progress` counts the characters written
 * so far in this call (a reply started over keeps counting, so it only grows, as MCP requires),
 * `message` is the new text. Sent in order; `flush` before the result, which ends the stream.
 */
function progressOf(extra: Extra, token: string | number | undefined) {
  let written = 0;
  let sent: Promise<void> = Promise.resolve();
  return {
    text: ({ text }: { text: string }) => {
      if (token === undefined || text === '') return;
      written += text.length;
      const params = { progressToken: token, progress: written, message: text };
      // Live output is best effort: a notification that cannot be sent is dropped.
      sent = sent.then(() => extra.sendNotification({ method: 'notifications/progress', params })).catch(() => undefined);
    },
    flush: () => sent,
  };
}

/** The caller's own mistakes in a turn (its conversation unknown, of another agent or busy; its text refused) in words it can act on. */
function turnRefusalOf(error: unknown, continuing: boolean): string | null {
  if (!(error instanceof DomainError)) return null;
  const { message } = safeError(error.message);
  switch (error.code) {
    case 'bad_request':
      return message;
    case 'not_found':
      return continuing ? `${message}: sessionId must be the sessionId of an earlier answer of this tool` : message;
    case 'conflict': {
      const latestRunId = error.details?.latestRunId;
      return typeof latestRunId === 'string'
        ? `${message}: run ${latestRunId} of this conversation is ${String(error.details?.state)}; call again once it has ended`
        : message;
    }
    default:
      return null;
  }
}
