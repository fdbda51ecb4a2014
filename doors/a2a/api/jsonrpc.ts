import type { Context } from 'hono';
import { A2A_ERROR_CODE, VersionNotSupportedError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext, type A2ARequestHandler } from '@a2a-js/sdk/server';
import { assertHasScopes } from '../../../domain/scopes.ts';
import type { AppEnv } from '../../../api/env.ts';
import { versionProblem } from '../domain/cards.ts';
import { decodeParams, isServedMethod, scopesOf } from './methods.ts';
import { sseResponse } from './sse.ts';

type RpcId = string | number | null;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const validId = (id: unknown): id is RpcId => id === null || typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));

const failure = (id: RpcId, code: number, message: string) => ({ jsonrpc: '2.0' as const, id, error: { code, message } });

/**
 * The JSON-RPC binding (A2A 1.0 §9): a `POST` of one request to the agent's endpoint. The envelope
 * is checked here, with JSON-RPC's own codes (-32700 not JSON, -32600 not a request: the SDK's
 * handler answers both as -32602), then `A2A-Version` and the method's scopes; the SDK's
 * transport handler reads the params and calls ours. A streaming method answers SSE, one
 * JSON-RPC response per frame; its errors before the first update are a plain JSON-RPC error.
 */
export async function serveJsonRpc(c: Context<AppEnv>, handler: A2ARequestHandler, takeStreamPlace: () => () => void): Promise<Response> {
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return c.json(failure(null, A2A_ERROR_CODE.PARSE_ERROR, 'Parse error: the body is not JSON'));
  }
  if (Array.isArray(body)) return c.json(failure(null, A2A_ERROR_CODE.INVALID_REQUEST, 'Invalid Request: batches are not served; send one request'));
  if (!isRecord(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string' || body.method === '' || ('id' in body && !validId(body.id)))
    return c.json(
      failure(isRecord(body) && validId(body.id) ? body.id : null, A2A_ERROR_CODE.INVALID_REQUEST, 'Invalid Request: a JSON-RPC 2.0 request object'),
    );
  const id: RpcId = 'id' in body ? (body.id as RpcId) : null;
  const problem = versionProblem(c.req.header('A2A-Version'));
  if (problem) return c.json({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(new VersionNotSupportedError(problem)) });
  if (isServedMethod(body.method)) {
    assertHasScopes(c.var.actor.scopes, scopesOf(body.method));
    // Read here only so that a codec's throw is -32602; the SDK's handler reads them again.
    try {
      decodeParams(body.method, body.params);
    } catch (error) {
      return c.json({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
    }
  }
  const result = await new JsonRpcTransportHandler(handler).handle(body, new ServerCallContext({ requestedVersion: '1.0' }));
  if (!(Symbol.asyncIterator in result)) return c.json(result);
  const finish = takeStreamPlace();
  const updates = result[Symbol.asyncIterator]();
  let first: IteratorResult<unknown>;
  try {
    first = await updates.next();
  } catch (error) {
    finish();
    return c.json({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
  }
  if (first.done) {
    finish();
    return c.json({ jsonrpc: '2.0', id, result: null });
  }
  return sseResponse({
    first: JSON.stringify(first.value),
    rest: (async function* () {
      for (;;) {
        const next = await updates.next();
        if (next.done) return;
        yield JSON.stringify(next.value);
      }
    })(),
    onError: (error) => JSON.stringify({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) }),
    finish,
  });
}
