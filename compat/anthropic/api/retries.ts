import type { Context } from 'hono';
import * as v from 'valibot';
import { ValidationError } from '../../../domain/errors.ts';
import { IdempotencyKey } from '../../../domain/idempotency.ts';
import { runDeduped } from '../services/retry-dedupe.ts';
import { hashRequestBody } from '../../../services/kernel/idempotency/index.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import type { AppEnv } from '../../../api/env.ts';

/**
 * Answers a mutation of the Anthropic-compatible API so that the SDK's automatic retries never
 * apply it twice (`compat/anthropic/services/retry-dedupe.ts`): `x-stainless-retry-count` ≥ 1 (or
 * the caller's own `Idempotency-Key`) replays the committed answer with `idempotency-replayed:
 * true`. `requestHash` defaults to the JSON body's hash; multipart routes pass a hash of their parts.
 */
export async function deduped<T>(c: Context<AppEnv>, run: (ctx: ServiceContext) => Promise<T>, options: { requestHash?: string } = {}): Promise<Response> {
  const requestHash = options.requestHash ?? hashRequestBody(await c.req.text());
  const answer = await runDeduped({
    ctx: c.var.ctx,
    input: { route: `${c.req.method} ${c.req.path}`, requestHash, attempt: retryCountOf(c), idempotencyKey: idempotencyKeyOf(c) },
    run,
  });
  if (!answer.replayed) return c.json(answer.body as object);
  return c.body(answer.bodyText, 200, { 'content-type': 'application/json', 'idempotency-replayed': 'true' });
}

function retryCountOf(c: Context<AppEnv>): number {
  const value = Number(c.req.header('x-stainless-retry-count') ?? '0');
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}

function idempotencyKeyOf(c: Context<AppEnv>): string | null {
  const header = c.req.header('idempotency-key');
  if (header === undefined) return null;
  const parsed = v.safeParse(IdempotencyKey, header);
  if (!parsed.success) throw new ValidationError(parsed.issues[0].message, { path: 'header.Idempotency-Key' });
  return header;
}
