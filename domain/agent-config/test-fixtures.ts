import { expect } from 'vitest';
import { DomainError } from '../errors.ts';

/** Shared by this folder's tests only: a valid config to mutate, and the rejection assertion. */

export const ids = {
  skillA: '11111111-1111-4111-8111-111111111111',
  skillB: '22222222-2222-4222-8222-222222222222',
  childVersion: '33333333-3333-4333-8333-333333333333',
  otherChildVersion: '44444444-4444-4444-8444-444444444444',
  snapshot: '55555555-5555-4555-8555-555555555555',
  toolset: '66666666-6666-4666-8666-666666666666',
  policy: '77777777-7777-4777-8777-777777777777',
};

/** Configs are JSON from the wire; tests mutate them freely. */
export type Json = any;

export function objectSchema(properties: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Json {
  return { type: 'object', properties, ...extra };
}

export function tool(name: string, extra: Record<string, unknown> = {}): Json {
  return {
    name,
    description: `The ${name} tool`,
    owner: 'caller',
    approval: 'never',
    inputSchema: objectSchema({ query: { type: 'string' } }, { required: ['query'] }),
    outputSchema: objectSchema(),
    ...extra,
  };
}

export function operation(key: string): Json {
  return {
    key,
    description: `The ${key} operation`,
    instructions: 'Do the task.',
    resultSchema: objectSchema({ summary: { type: 'string' } }),
    timeoutMs: 60_000,
  };
}

export function delegate(key: string, agentVersionId: string): Json {
  return { key, description: `The ${key} child`, agentVersionId, maxParallel: 2 };
}

export function enabledSandbox(capabilities: string[] = ['filesystem_read', 'shell']): Json {
  return { enabled: true, provider: 'vendor-main', snapshotId: ids.snapshot, network: 'none', capabilities };
}

/** Every field present and valid; the parsed form equals it plus defaults. */
export function validConfig(): Json {
  return {
    systemPrompt: 'You are a careful support agent.',
    modelPreset: 'default',
    tools: [tool('lookup_order')],
    harnessOperations: [operation('summarize')],
    skillVersionIds: [ids.skillA],
    mcpBindings: [{ toolsetVersionId: ids.toolset, credentialPolicyVersionId: ids.policy, namespace: 'crm' }],
    delegates: [delegate('researcher', ids.childVersion)],
    sandbox: enabledSandbox(),
    limits: { maxTurns: 32, timeoutMs: 60_000 },
  };
}

/** Asserts `run` throws a `bad_request` whose `details.path` is exactly `path`. */
export function expectBadRequest(run: () => unknown, path: string, message?: RegExp): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected a rejection at ${path}`).toBeInstanceOf(DomainError);
  const error = thrown as DomainError;
  expect({ code: error.code, path: error.details?.path }).toEqual({ code: 'bad_request', path });
  expect(error.message.startsWith(`${path} `)).toBe(true);
  if (message) expect(error.message).toMatch(message);
}
