import * as v from 'valibot';
import { isGrantableScope, type GrantableScope } from './scopes.ts';

export const ScopeList = v.pipe(
  v.array(v.pipe(v.string(), v.check(isGrantableScope, 'unknown scope')), 'scopes must be an array of scope names'),
  v.minLength(1, 'scopes must name at least one scope'),
  v.check((list) => new Set(list).size === list.length, 'scopes must be unique'),
  v.transform((list) => list as GrantableScope[]),
);

export const CreateApiKeyInput = v.strictObject({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'name must not be empty'), v.maxLength(200, 'name must be at most 200 characters')),
  scopes: ScopeList,
});
export type CreateApiKeyInput = v.InferOutput<typeof CreateApiKeyInput>;
