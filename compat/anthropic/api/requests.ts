import type { Context } from 'hono';
import * as v from 'valibot';
import { ValidationError } from '../../../domain/errors.ts';
import type { AppEnv } from '../../../api/env.ts';
import { assertStorable } from '../../../api/validation.ts';

/** The largest JSON body a facade route reads (the core's turn bodies are 20 MiB of files at most). */
const MAX_JSON_BYTES = 30 * 1024 * 1024;

/** The JSON body checked by `schema` (an absent body is `{}`: the SDK's bodiless POSTs send none). */
export async function jsonBody<T extends v.GenericSchema>(c: Context<AppEnv>, schema: T): Promise<v.InferOutput<T>> {
  const text = await c.req.text();
  if (Buffer.byteLength(text) > MAX_JSON_BYTES) throw new ValidationError('The request body is too large');
  let body: unknown = {};
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      throw new ValidationError('The request body is not valid JSON');
    }
  }
  // The native API's check of what no column can store (a lone surrogate, a NUL, deep nesting).
  assertStorable(body, 'body');
  return parsed(schema, body, 'body');
}

/** A value checked by `schema`; a 400 naming the first failing path under `root`. */
export function parsed<T extends v.GenericSchema>(schema: T, value: unknown, root: string): v.InferOutput<T> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = [root, ...(issue.path?.map((item) => String(item.key)) ?? [])].join('.');
  throw new ValidationError(`${path.replace(/^(body|query)\.?/, '') || root}: ${issue.message}`, { path });
}

/** `limit` (default 20; up to 1,000 accepted, as the SDK's tool runner asks) and `page` (empty = absent). */
export function paging(c: Context<AppEnv>): { limit: number; page: string | undefined } {
  const raw = c.req.query('limit');
  const limit = raw === undefined || raw === '' ? 20 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new ValidationError('limit must be an integer from 1 to 1000', { path: 'query.limit' });
  const page = c.req.query('page');
  return { limit, page: page === undefined || page === '' ? undefined : page };
}

/** A boolean query flag (`true` / `false`, absent = false). */
export function flag(c: Context<AppEnv>, name: string): boolean {
  const value = c.req.query(name);
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw new ValidationError(`${name} must be true or false`, { path: `query.${name}` });
}

export { isOurId } from '../domain/ids.ts';

/** `created_at[gt|gte|lt|lte]` query bounds (RFC 3339 times); a bad time is a 400 naming it. */
export function createdAtBounds(c: Context<AppEnv>): { gt?: Date; gte?: Date; lt?: Date; lte?: Date } {
  const bounds: { gt?: Date; gte?: Date; lt?: Date; lte?: Date } = {};
  for (const key of ['gt', 'gte', 'lt', 'lte'] as const) {
    const raw = c.req.query(`created_at[${key}]`);
    if (raw === undefined || raw === '') continue;
    const at = new Date(raw);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(raw) || Number.isNaN(at.getTime()))
      throw new ValidationError(`created_at[${key}] must be an RFC 3339 time`, { path: `query.created_at[${key}]` });
    bounds[key] = at;
  }
  return bounds;
}

/** `order`: `asc` or `desc` (absent or empty: `fallback`). */
export function orderOf(c: Context<AppEnv>, fallback: 'asc' | 'desc'): 'asc' | 'desc' {
  const order = c.req.query('order');
  if (order === undefined || order === '') return fallback;
  if (order !== 'asc' && order !== 'desc') throw new ValidationError('order must be asc or desc', { path: 'query.order' });
  return order;
}
