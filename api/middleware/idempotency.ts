import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import * as v from 'valibot';
import { ValidationError } from '../../domain/errors.ts';
import { IdempotencyKey } from '../../domain/idempotency.ts';
import { executeIdempotently } from '../../services/kernel/idempotency/index.ts';
import { hashRequestBody, type StoredResponse } from '../../services/kernel/idempotency/index.ts';
import type { AppEnv } from '../env.ts';
import { isMutation } from '../mutations.ts';
import { matchedRouteDoc, takesIdempotencyKey, transactionNeedOf } from '../openapi/route-doc.ts';
import { readBodyText } from '../validation.ts';

const REPLAYED_HEADERS = ['content-type', 'location'];
const MAX_IDEMPOTENT_BODY_BYTES = 40 * 1024 * 1024;

/**
 * Idempotency-Key on every mutation (spec 2 common rule 2). The route runs inside
 * `executeIdempotently`: its service context is the transaction that also stores the response,
 * from the start, or, where the matched route declares `transaction: 'deferred'` (its verb calls
 * out first), opened on the verb's first use. Routes declared `none` take no key. The middleware
 * knows no route: each declares its needs beside its verb (`api/openapi/route-doc.ts`). Only 2xx
 * responses are stored; anything else rolls back.
 */
export const idempotency = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    const doc = matchedRouteDoc(c);
    // No route matched (every route declares a contract): the request ends in 404 without a key.
    if (!isMutation(c.req.method) || !doc || !takesIdempotencyKey(doc)) return next();
    const header = c.req.header('idempotency-key');
    if (header === undefined) throw new ValidationError('The Idempotency-Key header is required for this request');
    const parsed = v.safeParse(IdempotencyKey, header);
    if (!parsed.success) throw new ValidationError(parsed.issues[0].message);

    const scope = { principalId: c.var.actor.principalId, route: `${c.req.method} ${c.req.path}`, idempotencyKey: header };
    const bodyText = await readBodyText(c, MAX_IDEMPOTENT_BODY_BYTES);
    const requestHash = hashRequestBody(bodyText);
    const transaction = transactionNeedOf(doc, bodyText) === 'deferred' ? 'when_asked' : 'before_run';
    const outcome = await executeIdempotently({
      ctx: c.var.ctx,
      input: { scope, requestHash, transaction },
      run: async (ctx) => {
        c.set('ctx', ctx);
        await next();
        if (c.res.status < 200 || c.res.status > 299) return null;
        const body = c.get('idempotencyStoredBody') ?? (await readJson(c.res.clone()));
        return { status: c.res.status, body, headers: pickHeaders(c.res.headers) };
      },
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
