import type { Context } from 'hono';
import { SendMessageResponse, StreamResponse, Task, type ListTasksResponse } from '@a2a-js/sdk';
import {
  PushNotificationNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  RequestMalformedError,
  restStatusFor,
  toRestErrorBody,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '@a2a-js/sdk/errors';
import { ServerCallContext, type A2ARequestHandler } from '@a2a-js/sdk/server';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { assertHasScopes } from '../../../domain/scopes.ts';
import type { AppEnv } from '../../../api/env.ts';
import { versionProblem } from '../domain/cards.ts';
import { decodeParams, scopesOf, type ServedMethod } from './methods.ts';
import { sseResponse } from './sse.ts';

type Route = (c: Context<AppEnv>, handler: A2ARequestHandler, takeStreamPlace: () => () => void) => Promise<Response>;

/**
 * The HTTP+JSON binding (A2A 1.0 §11), below the agent's endpoint: `POST message:send` and
 * `message:stream`, `GET tasks` and `tasks/{id}`, `POST tasks/{id}:cancel` and `tasks/{id}:subscribe`.
 * Bodies and answers are the protocol's JSON; errors are `google.rpc.Status` bodies with their
 * `ErrorInfo`, at the status the spec gives each. `path` is what follows the endpoint.
 */
export async function serveRest(c: Context<AppEnv>, path: string, handler: A2ARequestHandler, takeStreamPlace: () => () => void): Promise<Response> {
  try {
    const problem = versionProblem(c.req.header('A2A-Version'));
    if (problem) throw new VersionNotSupportedError(problem);
    const route = routeOf(path, c.req.method);
    if (!route) throw new UnsupportedOperationError(`No ${c.req.method} ${path} in the HTTP+JSON binding`);
    return await route(c, handler, takeStreamPlace);
  } catch (error) {
    return restError(c, error);
  }
}

function routeOf(path: string, method: string): Route | null {
  const task = /^tasks\/([^/:]+)(:cancel|:subscribe|\/pushNotificationConfigs(?:\/[^/]+)?)?$/.exec(path);
  if (path === 'message:send' && method === 'POST')
    return async (c, handler) => {
      scoped(c, 'SendMessage');
      const result = await handler.sendMessage(decodeParams('SendMessage', await jsonBody(c)), contextOf());
      return c.json(SendMessageResponse.toJSON({ payload: 'messageId' in result ? { $case: 'message', value: result } : { $case: 'task', value: result } }));
    };
  if (path === 'message:stream' && method === 'POST')
    return async (c, handler, takeStreamPlace) => {
      scoped(c, 'SendStreamingMessage');
      return streamed(handler.sendMessageStream(decodeParams('SendStreamingMessage', await jsonBody(c)), contextOf()), takeStreamPlace);
    };
  if (path === 'tasks' && method === 'GET')
    return async (c, handler) => {
      scoped(c, 'ListTasks');
      const query = c.req.query();
      const request = decodeParams('ListTasks', query);
      if (query.pageSize !== undefined && !/^\d+$/.test(query.pageSize)) throw new RequestMalformedError('pageSize: must be 1-100');
      const listed: ListTasksResponse = await handler.listTasks(request, contextOf());
      return c.json({ ...toJson(listed), tasks: listed.tasks.map((task) => Task.toJSON(task)) });
    };
  if (task && !task[2] && method === 'GET')
    return async (c, handler) => {
      scoped(c, 'GetTask');
      const historyLength = c.req.query('historyLength');
      const request = { tenant: '', id: idOf(task[1]!), ...(historyLength !== undefined ? { historyLength: Number(historyLength) } : {}) };
      return c.json(Task.toJSON(await handler.getTask(request, contextOf())));
    };
  if (task?.[2] === ':cancel' && method === 'POST')
    return async (c, handler) => {
      scoped(c, 'CancelTask');
      return c.json(Task.toJSON(await handler.cancelTask({ tenant: '', id: idOf(task[1]!), metadata: undefined }, contextOf())));
    };
  if (task?.[2] === ':subscribe' && (method === 'POST' || method === 'GET'))
    return async (c, handler, takeStreamPlace) => {
      scoped(c, 'SubscribeToTask');
      return streamed(handler.resubscribe({ tenant: '', id: idOf(task[1]!) }, contextOf()), takeStreamPlace);
    };
  if (task?.[2]?.startsWith('/pushNotificationConfigs'))
    return async () => {
      throw new PushNotificationNotSupportedError('Push notifications are not served here: follow a task with message:stream or tasks/{id}:subscribe');
    };
  if (path === 'extendedAgentCard' && method === 'GET')
    return async () => {
      throw new ExtendedAgentCardNotConfiguredError('This server has no extended agent card');
    };
  return null;
}

/** A task id from the path: percent-decoded, or (malformed) left as it is, which no task has. */
const idOf = (raw: string) => {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
};

const contextOf = () => new ServerCallContext({ requestedVersion: '1.0' });

function scoped(c: Context<AppEnv>, method: ServedMethod) {
  assertHasScopes(c.var.actor.scopes, scopesOf(method));
}

async function jsonBody(c: Context<AppEnv>): Promise<unknown> {
  try {
    return JSON.parse(await c.req.text());
  } catch {
    throw new RequestMalformedError('The body is not JSON');
  }
}

const toJson = (listed: ListTasksResponse) => ({ nextPageToken: listed.nextPageToken, pageSize: listed.pageSize, totalSize: listed.totalSize });

async function streamed(updates: AsyncGenerator<StreamResponse>, takeStreamPlace: () => () => void): Promise<Response> {
  const finish = takeStreamPlace();
  let first: IteratorResult<StreamResponse>;
  try {
    first = await updates.next();
  } catch (error) {
    finish();
    throw error;
  }
  if (first.done) {
    finish();
    throw new UnsupportedOperationError('The task has no updates to stream');
  }
  return sseResponse({
    first: JSON.stringify(StreamResponse.toJSON(first.value)),
    rest: (async function* () {
      for await (const update of { [Symbol.asyncIterator]: () => updates }) yield JSON.stringify(StreamResponse.toJSON(update));
    })(),
    onError: (error) => JSON.stringify(toRestErrorBody(error, restStatusFor(error))),
    errorEvent: 'error',
    finish,
  });
}

function restError(c: Context<AppEnv>, error: unknown): Response {
  // Our own HTTP-level errors (scopes) go to the app's error handler, in the service's envelope.
  if (!(error instanceof Error) || !('toErrorInfo' in error)) throw error;
  const status = restStatusFor(error);
  return c.json(toRestErrorBody(error, status), status as ContentfulStatusCode);
}
