import * as v from 'valibot';
import type { ValidationError } from '../errors.ts';
import { AgentConfig } from './config-schema.ts';
import { DEFAULT_ROOT, invalid, pathOf } from './paths.ts';
import { normalizeObjectSchema } from './tool-schema-policy.ts';
import { checkToolNamespace } from './tools.ts';

export type ParseOptions = {
  /** Prefix of every error path: `config` (default), or e.g. `initialConfig` for agent creation. */
  root?: string;
};

/**
 * Parses an agent version config fail-closed: structure and ranges, then the tool-schema
 * dialect of every tool and Harness Operation schema, then rules spanning fields (unique ids
 * and keys, the mounted tool namespace, sandbox requirements). Returns a fresh config with every
 * default applied, ready for `canonicalAgentConfig`; throws a `ValidationError` (`bad_request`)
 * whose `details.path` is the exact location, e.g. `config.tools[2].inputSchema.properties.x`.
 * Parsing a parsed config returns an equal config, so stored configs re-publish unchanged.
 */
export function parseAgentConfig(input: unknown, options: ParseOptions = {}): AgentConfig {
  const root = options.root ?? DEFAULT_ROOT;
  const result = v.safeParse(AgentConfig, input, { abortEarly: true });
  if (!result.success) throw fromIssue(result.issues[0], root);
  const parsed = result.output;
  const config: AgentConfig = {
    ...parsed,
    tools: parsed.tools.map((tool, index) => ({
      ...tool,
      inputSchema: normalizeObjectSchema(tool.inputSchema, pathOf(root, 'tools', index, 'inputSchema')),
      outputSchema: normalizeObjectSchema(tool.outputSchema, pathOf(root, 'tools', index, 'outputSchema')),
    })),
    harnessOperations: parsed.harnessOperations.map((operation, index) => ({
      ...operation,
      resultSchema: normalizeObjectSchema(operation.resultSchema, pathOf(root, 'harnessOperations', index, 'resultSchema')),
    })),
  };
  checkSandbox(config, root);
  checkToolNamespace(config, root);
  checkUnique(config.skillVersionIds, (id) => id, pathOf(root, 'skillVersionIds'), []);
  checkUnique(config.delegates, (delegate) => delegate.key, pathOf(root, 'delegates'), ['key']);
  config.delegates.forEach((delegate, index) => {
    if ((delegate.agentVersionId === undefined) === (delegate.self === undefined))
      throw invalid(pathOf(root, 'delegates', index), 'must have either "agentVersionId" (another agent\'s version) or "self": true');
  });
  // Keys are unique (checked above), so a `self` entry never repeats another's version here.
  checkUnique(config.delegates, (delegate) => delegate.agentVersionId ?? `self:${delegate.key}`, pathOf(root, 'delegates'), ['agentVersionId']);
  const selves = config.delegates.flatMap((delegate, index) => (delegate.self ? [index] : []));
  if (selves.length > 1) throw invalid(pathOf(root, 'delegates', selves[1]!, 'self'), 'repeats "self": a coordinator has at most one copy of itself');
  checkUnique(config.mcpBindings, (binding) => binding.namespace, pathOf(root, 'mcpBindings'), ['namespace']);
  return config;
}

function checkSandbox(config: AgentConfig, root: string): void {
  const { sandbox } = config;
  if (sandbox.enabled && sandbox.provider === null)
    throw invalid(pathOf(root, 'sandbox', 'provider'), 'must name a sandbox connection when the sandbox is enabled');
  if (sandbox.enabled && sandbox.snapshotId === null)
    throw invalid(pathOf(root, 'sandbox', 'snapshotId'), 'must be a snapshot UUID when the sandbox is enabled');
  checkUnique(sandbox.capabilities, (capability) => capability, pathOf(root, 'sandbox', 'capabilities'), []);
}

/** Rejects the second occurrence of a key; the path points at the repeated entry. */
function checkUnique<T>(items: readonly T[], keyOf: (item: T) => string, arrayPath: string, field: string[]): void {
  const seen = new Map<string, string>();
  items.forEach((item, index) => {
    const key = keyOf(item);
    const path = pathOf(arrayPath, index, ...field);
    const earlier = seen.get(key);
    if (earlier !== undefined) throw invalid(path, `repeats "${key}", already given at ${earlier}`);
    seen.set(key, path);
  });
}

/** Turns the first valibot issue into our error; strict-object issues get plain-language text. */
function fromIssue(issue: v.BaseIssue<unknown> | undefined, root: string): ValidationError {
  if (!issue) return invalid(root, 'is invalid');
  const keys = (issue.path ?? []).map((item) => item.key as string | number);
  const path = pathOf(root, ...keys);
  const objectIssue = issue.type === 'strict_object' && keys.length > 0;
  if (objectIssue && issue.expected === 'never') return invalid(path, 'is not a recognized field');
  if (objectIssue && issue.received === 'undefined') return invalid(path, 'is required');
  return invalid(path, issue.message);
}
