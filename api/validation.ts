import type { Context } from 'hono';
import * as v from 'valibot';
import { ValidationError } from '../domain/errors.ts';
import { describeJsonProblem, unstorableJsonPart } from '../domain/json-limits.ts';
import type { AppEnv } from './env.ts';

/** Default ceiling for JSON bodies; routes that carry files pass a larger one. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

type AnySchema = v.GenericSchema<unknown, unknown>;

/**
 * The shared validation hook: reads the JSON body (size-checked, Content-Type checked), then
 * validates it. Every failure is a `bad_request` with the first failing path in `details.path`.
 */
export async function validBody<S extends AnySchema>(c: Context<AppEnv>, schema: S, options: { maxBytes?: number } = {}): Promise<v.InferOutput<S>> {
  assertDocumented(c, 'body', schema);
  const text = await readBodyText(c, options.maxBytes ?? DEFAULT_MAX_BODY_BYTES);
  let value: unknown = undefined;
  if (text.trim() !== '') {
    const contentType = c.req.header('content-type') ?? '';
    if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(contentType)) {
      throw new ValidationError('Content-Type must be application/json');
    }
    try {
      value = JSON.parse(text);
    } catch {
      throw new ValidationError('The request body is not valid JSON');
    }
  }
  assertStorable(value, 'body');
  return validate(schema, value, 'body');
}

export function validQuery<S extends AnySchema>(c: Context<AppEnv>, schema: S): v.InferOutput<S> {
  assertDocumented(c, 'query', schema);
  const query = c.req.query();
  assertStorable(query, 'query');
  return validate(schema, query, 'query');
}

export function validParams<S extends AnySchema>(c: Context<AppEnv>, schema: S): v.InferOutput<S> {
  assertDocumented(c, 'params', schema);
  const params = c.req.param();
  assertStorable(params, 'path');
  return validate(schema, params, 'path');
}

/**
 * A route validates exactly the schemas its contract names (`route(...)`), so the OpenAPI
 * document is what the route accepts. A mismatch is a programming error: every test that reaches
 * the route fails on it.
 */
function assertDocumented(c: Context<AppEnv>, where: 'body' | 'query' | 'params', schema: AnySchema): void {
  const documented = c.get('routeDoc')?.[where];
  if (documented !== schema) throw new Error(`${c.req.method} ${c.req.routePath} validates its ${where} with a schema its route contract does not name`);
}

export async function readBodyText(c: Context<AppEnv>, maxBytes: number): Promise<string> {
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const text = await c.req.text();
  if (Buffer.byteLength(text, 'utf8') > maxBytes) throw tooLarge(maxBytes);
  return text;
}

function tooLarge(maxBytes: number) {
  return new ValidationError(`The request body is larger than ${maxBytes} bytes`, { maxBytes });
}

/**
 * Refuses what no column can store, before any schema or verb sees it (domain/json-limits.ts):
 * a lone surrogate or NUL in any string or key, or nesting past `MAX_JSON_DEPTH`. Every JSON body
 * of the native and the Anthropic-compatible API passes here, so no statement ever fails on such
 * input (a failed statement's parameters are the caller's text).
 */
export function assertStorable(value: unknown, root: string): void {
  const problem = unstorableJsonPart(value);
  if (!problem) return;
  const path = [root, ...problem.path.map(String)].join('.');
  const limit = problem.kind === 'too_deep' ? { limit: 'json_depth', maxDepth: problem.maxDepth } : {};
  throw new ValidationError(`${path}: ${describeJsonProblem(problem)}`, { path, ...limit });
}

export function validate<S extends AnySchema>(schema: S, value: unknown, where: 'body' | 'query' | 'path'): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  const issues = result.issues.slice(0, 10).map((issue) => ({ path: issuePath(where, issue), message: issue.message }));
  const first = issues[0]!;
  throw new ValidationError(`Invalid ${where}: ${first.path}: ${first.message}`, { path: first.path, issues });
}

function issuePath(where: string, issue: v.BaseIssue<unknown>): string {
  const keys = issue.path?.map((item) => String(item.key)) ?? [];
  return [where, ...keys].join('.');
}

/** A UUID path or query parameter; anything else is a 400, never a database cast error. */
export const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'));

/** The request's Idempotency-Key as verbs record it (the middleware has already checked it). */
export const idempotencyKeyOf = (header: string | undefined) => header ?? null;
