import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import * as v from 'valibot';
import { ValidationError } from '../../domain/errors.ts';
import { IdempotencyKey } from '../../domain/idempotency.ts';
import { executeIdempotently } from '../../services/idempotency/execute.ts';
import { hashRequestBody, type StoredResponse } from '../../services/idempotency/records.ts';
import type { AppEnv } from '../env.ts';
import { readBodyText } from '../validation.ts';
import { isMutation } from '../mutations.ts';

const REPLAYED_HEADERS = ['content-type', 'location'];
const MAX_IDEMPOTENT_BODY_BYTES = 40 * 1024 * 1024;

/** Mutations that are not resource changes: browser sign-in plumbing (no principal yet). */
export const isIdempotencyExempt = (path: string) => path.startsWith('/v1/auth/') || RESTORE_PREVIEW.test(path);

// Spec 2 rule 2: the configuration-restore preview changes nothing and takes no key.
const RESTORE_PREVIEW = /^\/v1\/organizations\/[^/]+\/configuration-restore\/preview$/;

/**
 * Requests whose verbs make a network call before their transaction opens: a turn that carries
 * files (session create, follow-up, resume upload them) and MCP discovery (it asks the server
 * for its tools). Their context is outside any transaction until the verb's `withTransaction`
 * opens the one that also stores the response, so no transaction is held open while bytes
 * travel. Every other mutation, a turn without files included, runs inside its transaction from
 * the start (the cheaper path: about 15% more sessions per second, bench/run-engine.bench.ts).
 */
const CALLS_OUT_FIRST: Array<{ route: RegExp; when: (body: unknown) => boolean }> = [
  { route: /^\/v1\/projects\/[^/]+\/sessions$/, when: (body) => carriesFiles(body) },
  { route: /^\/v1\/projects\/[^/]+\/sessions\/[^/]+\/runs$/, when: (body) => carriesFiles(body) },
  { route: /^\/v1\/projects\/[^/]+\/runs\/[^/]+\/resume$/, when: (body) => carriesFiles(body) },
  { route: /^\/v1\/projects\/[^/]+\/mcp-servers\/[^/]+\/discover$/, when: () => true },
];

const carriesFiles = (body: unknown) => Array.isArray((body as { files?: unknown } | null)?.files) && (body as { files: unknown[] }).files.length > 0;

function callsOutFirst(method: string, path: string, bodyText: string): boolean {
  if (method !== 'POST') return false;
  const entry = CALLS_OUT_FIRST.find(({ route }) => route.test(path));
  if (!entry) return false;
  try {
    return entry.when(bodyText.trim() === '' ? null : JSON.parse(bodyText));
  } catch {
    return false; // the route answers malformed JSON with a 400 before any network call
  }
}

/**
 * Idempotency-Key on every mutation (spec 2 common rule 2). The route runs inside
 * `executeIdempotently`: its service context is (or, for routes that call out first, opens on
 * first use) the transaction that also stores the response. Only 2xx responses are stored;
 * anything else rolls back.
 */
export const idempotency = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (!isMutation(c.req.method) || isIdempotencyExempt(c.req.path)) return next();
    const header = c.req.header('idempotency-key');
    if (header === undefined) throw new ValidationError('The Idempotency-Key header is required for this request');
    const parsed = v.safeParse(IdempotencyKey, header);
    if (!parsed.success) throw new ValidationError(parsed.issues[0].message);

    const scope = { principalId: c.var.actor.principalId, route: `${c.req.method} ${c.req.path}`, idempotencyKey: header };
    const bodyText = await readBodyText(c, MAX_IDEMPOTENT_BODY_BYTES);
    const requestHash = hashRequestBody(bodyText);
    const transaction = callsOutFirst(c.req.method, c.req.path, bodyText) ? 'when_asked' : 'before_run';
    const outcome = await executeIdempotently(c.var.ctx, { scope, requestHash, transaction }, async (ctx) => {
      c.set('ctx', ctx);
      await next();
      if (c.res.status < 200 || c.res.status > 299) return null;
      const body = c.get('idempotencyStoredBody') ?? (await readJson(c.res.clone()));
      return { status: c.res.status, body, headers: pickHeaders(c.res.headers) };
    });
    if (outcome.kind === 'replay') return replay(c, outcome.record);
  });

function replay(c: Context<AppEnv>, record: StoredResponse): Response {
  const headers = new Headers(record.headers);
  headers.set('idempotency-replayed', 'true');
  headers.set('x-request-id', c.var.requestId);
  c.res = new Response(record.bodyText, { status: record.status, headers });
  return c.res;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  return text === '' ? null : JSON.parse(text);
}

function pickHeaders(headers: Headers): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = headers.get(name);
    if (value !== null) picked[name] = value;
  }
  return picked;
}
