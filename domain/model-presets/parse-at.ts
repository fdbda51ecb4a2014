import * as v from 'valibot';
import { ValidationError } from '../errors.ts';

type AnySchema = v.GenericSchema<unknown, unknown>;

/**
 * Parses `value` with `schema` and reports failures at `path` (for example `body.settings`),
 * in the same `details` shape as the API's validation hook: `{path, issues}`.
 */
export function parseAt<S extends AnySchema>(schema: S, value: unknown, path: string): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  const issues = result.issues.slice(0, 10).map((issue) => ({
    path: [path, ...(issue.path?.map((item) => String(item.key)) ?? [])].join('.'),
    message: issue.message,
  }));
  const first = issues[0]!;
  throw new ValidationError(`Invalid ${first.path}: ${first.message}`, { path: first.path, issues });
}
