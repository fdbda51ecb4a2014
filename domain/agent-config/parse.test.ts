import { describe, expect, it } from 'vitest';
import { parseAgentConfig } from './parse.ts';
import { delegate, enabledSandbox, expectBadRequest, ids, operation, tool, validConfig, type Json } from './test-fixtures.ts';

type Mutation = (config: Json) => void;

const repeat = (count: number, make: (index: number) => unknown) => Array.from({ length: count }, (_, index) => make(index));
const uuid = (index: number) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`;
const letters = (count: number) => 'a'.repeat(count);

describe('parseAgentConfig accepts', () => {
  const accepted: Array<[string, Mutation]> = [
    ['the full valid config', () => {}],
    ["a one-character systemPrompt (the 20-character minimum is the console's)", (c) => (c.systemPrompt = 'x')],
    ['an explicit tool schemaVersion 1', (c) => (c.tools[0].schemaVersion = 1)],
    ['a 200-character tool name', (c) => (c.tools[0].name = `t${letters(199)}`)],
    ['tool names with capitals, digits, "_" and "-"', (c) => (c.tools[0].name = '_Get-Order_2')],
    ['a 2,000-character tool description', (c) => (c.tools[0].description = letters(2000))],
    ['platform-owned tools that always need approval', (c) => Object.assign(c.tools[0], { owner: 'platform', approval: 'always' })],
    ['32 Harness Operations', (c) => (c.harnessOperations = repeat(32, (i) => operation(`op${i}`)))],
    ['a 64-character Harness Operation key with "_" and "-"', (c) => (c.harnessOperations[0].key = `a-_${letters(61)}`)],
    [
      'Harness Operation timeouts of 1,000 and 300,000 ms',
      (c) =>
        (c.harnessOperations = [
          { ...operation('a'), timeoutMs: 1000 },
          { ...operation('b'), timeoutMs: 300_000 },
        ]),
    ],
    ['100,000-character instructions', (c) => (c.harnessOperations[0].instructions = letters(100_000))],
    ['32 delegates', (c) => (c.delegates = repeat(32, (i) => delegate(`d${i}`, uuid(i))))],
    [
      'maxParallel 1 and 8',
      (c) =>
        (c.delegates = [
          { ...delegate('a', uuid(1)), maxParallel: 1 },
          { ...delegate('b', uuid(2)), maxParallel: 8 },
        ]),
    ],
    ['a self delegate beside another agent', (c) => c.delegates.push({ key: 'copy', description: 'A copy of me.', self: true, maxParallel: 4 })],
    [
      'MCP namespaces of one letter, segments and 64 characters',
      (c) => (c.mcpBindings = ['a', 'crm_v2_eu', `n${letters(63)}`].map((namespace) => ({ ...c.mcpBindings[0], namespace }))),
    ],
    ['a disabled sandbox without provider or snapshot', (c) => (c.sandbox = { enabled: false, provider: null, capabilities: [] })],
    ['a disabled sandbox that keeps a provider and snapshot', (c) => (c.sandbox.enabled = false)],
    [
      'restricted network and every capability',
      (c) => (c.sandbox = { ...enabledSandbox(['filesystem_read', 'filesystem_write', 'shell', 'browser']), network: 'restricted' }),
    ],
    ['an enabled sandbox without capabilities', (c) => (c.sandbox.capabilities = [])],
    ['maxTurns 1 and timeoutMs 1,000', (c) => (c.limits = { maxTurns: 1, timeoutMs: 1000 })],
    ['maxTurns 256', (c) => (c.limits.maxTurns = 256)],
    ['a tool named "bash" when the sandbox is disabled', (c) => ((c.sandbox.enabled = false), c.tools.push(tool('bash')))],
    ['a tool named "write" when only read and shell are enabled', (c) => c.tools.push(tool('write'))],
    ['a tool named like an MCP namespace without the prefix', (c) => c.tools.push(tool('crm_lookup'))],
  ];

  it.each(accepted)('%s', (_name, mutate) => {
    const config = validConfig();
    mutate(config);
    expect(() => parseAgentConfig(config)).not.toThrow();
  });

  it('applies every default to a minimal config', () => {
    const parsed = parseAgentConfig({ systemPrompt: 'Be brief.', modelPreset: 'default', limits: { maxTurns: 4 } });
    expect(parsed).toEqual({
      systemPrompt: 'Be brief.',
      modelPreset: 'default',
      tools: [],
      harnessOperations: [],
      skillVersionIds: [],
      mcpBindings: [],
      delegates: [],
      sandbox: { enabled: false, provider: null, snapshotId: null, network: 'none', capabilities: [] },
      limits: { maxTurns: 4, timeoutMs: 60_000 },
    });
  });

  it('defaults schemaVersion, root schema keywords and sandbox network; lowercases UUIDs', () => {
    const config = validConfig();
    config.tools[0].outputSchema = { type: 'object' };
    config.skillVersionIds = [ids.skillA.toUpperCase()];
    delete config.sandbox.network;
    const parsed = parseAgentConfig(config);
    expect(parsed.tools[0]!.schemaVersion).toBe(1);
    expect(parsed.tools[0]!.outputSchema).toEqual({ type: 'object', properties: {}, required: [], additionalProperties: true });
    expect(parsed.skillVersionIds).toEqual([ids.skillA]);
    expect(parsed.sandbox.network).toBe('none');
  });

  it('is idempotent: a parsed config parses to itself', () => {
    const parsed = parseAgentConfig(validConfig());
    expect(parseAgentConfig(JSON.parse(JSON.stringify(parsed)))).toEqual(parsed);
  });

  it('does not share objects with its input', () => {
    const config = validConfig();
    const parsed = parseAgentConfig(config);
    config.tools[0].inputSchema.properties.query.type = 'number';
    expect(parsed.tools[0]!.inputSchema.properties.query).toEqual({ type: 'string' });
  });
});

describe('parseAgentConfig rejects', () => {
  const rejected: Array<[string, Mutation, string]> = [
    // Structure and strictness
    ['an unknown top-level field', (c) => (c.model = 'x'), 'config.model'],
    ['an own __proto__ key', (c) => Object.defineProperty(c, '__proto__', { value: {}, enumerable: true }), 'config.__proto__'],
    ['an unknown tool field', (c) => (c.tools[0].strict = true), 'config.tools[0].strict'],
    ['an unknown limits field', (c) => (c.limits.maxTokens = 10), 'config.limits.maxTokens'],
    ['an unknown sandbox field', (c) => (c.sandbox.cpu = 2), 'config.sandbox.cpu'],
    ['an unknown delegate field', (c) => (c.delegates[0].model = 'x'), 'config.delegates[0].model'],
    ['an unknown MCP binding field', (c) => (c.mcpBindings[0].url = 'https://x'), 'config.mcpBindings[0].url'],
    // systemPrompt, modelPreset
    ['a missing systemPrompt', (c) => delete c.systemPrompt, 'config.systemPrompt'],
    ['an empty systemPrompt', (c) => (c.systemPrompt = ''), 'config.systemPrompt'],
    ['a systemPrompt over 100,000 characters', (c) => (c.systemPrompt = letters(100_001)), 'config.systemPrompt'],
    ['a non-string modelPreset', (c) => (c.modelPreset = 7), 'config.modelPreset'],
    ['an empty modelPreset', (c) => (c.modelPreset = ''), 'config.modelPreset'],
    // Tools
    ['tools that are not an array', (c) => (c.tools = {}), 'config.tools'],
    ['a tool that is not an object', (c) => (c.tools = ['lookup']), 'config.tools[0]'],
    ['schemaVersion 2', (c) => (c.tools[0].schemaVersion = 2), 'config.tools[0].schemaVersion'],
    ['an empty tool name', (c) => (c.tools[0].name = ''), 'config.tools[0].name'],
    ['a 201-character tool name', (c) => (c.tools[0].name = letters(201)), 'config.tools[0].name'],
    ['a tool name with a space', (c) => (c.tools[0].name = 'look up'), 'config.tools[0].name'],
    ['a tool name starting with a digit', (c) => (c.tools[0].name = '1lookup'), 'config.tools[0].name'],
    ['an empty tool description', (c) => (c.tools[0].description = ''), 'config.tools[0].description'],
    ['a 2,001-character tool description', (c) => (c.tools[0].description = letters(2001)), 'config.tools[0].description'],
    ['an unknown owner', (c) => (c.tools[0].owner = 'server'), 'config.tools[0].owner'],
    ['an unknown approval', (c) => (c.tools[0].approval = 'sometimes'), 'config.tools[0].approval'],
    ['a missing inputSchema', (c) => delete c.tools[0].inputSchema, 'config.tools[0].inputSchema'],
    ['an inputSchema that is an array', (c) => (c.tools[0].inputSchema = []), 'config.tools[0].inputSchema'],
    ['an outputSchema whose root is not an object', (c) => (c.tools[0].outputSchema = { type: 'string' }), 'config.tools[0].outputSchema.type'],
    [
      'a schema-policy violation inside a later tool',
      (c) => c.tools.push(tool('b', { inputSchema: { type: 'object', properties: { user: { type: 'string', pattern: '^a' } } } })),
      'config.tools[1].inputSchema.properties.user.pattern',
    ],
    // The mounted tool namespace
    ['a repeated tool name', (c) => c.tools.push(tool('lookup_order')), 'config.tools[1].name'],
    ['a tool name repeated in another case', (c) => c.tools.push(tool('Lookup_Order')), 'config.tools[1].name'],
    ['the reserved delegate_agent', (c) => c.tools.push(tool('delegate_agent')), 'config.tools[1].name'],
    ['the reserved message_agent', (c) => c.tools.push(tool('message_agent')), 'config.tools[1].name'],
    ['the reserved mcp__ prefix', (c) => c.tools.push(tool('mcp__crm__find')), 'config.tools[1].name'],
    ['a shell tool name while shell is enabled', (c) => c.tools.push(tool('bash')), 'config.tools[1].name'],
    ['a read tool name while filesystem_read is enabled', (c) => c.tools.push(tool('Read')), 'config.tools[1].name'],
    [
      'a browser tool name while browser is enabled',
      (c) => ((c.sandbox.capabilities = ['browser']), c.tools.push(tool('browser_snapshot'))),
      'config.tools[1].name',
    ],
    ['a Harness Operation key equal to a tool name', (c) => c.harnessOperations.push(operation('lookup_order')), 'config.harnessOperations[1].key'],
    ['a Harness Operation key equal to a sandbox tool', (c) => c.harnessOperations.push(operation('grep')), 'config.harnessOperations[1].key'],
    ['a Harness Operation key equal to a delegation tool', (c) => c.harnessOperations.push(operation('message_agent')), 'config.harnessOperations[1].key'],
    ['a Harness Operation key with the mcp__ prefix', (c) => c.harnessOperations.push(operation('mcp__x')), 'config.harnessOperations[1].key'],
    ['a repeated Harness Operation key', (c) => c.harnessOperations.push(operation('summarize')), 'config.harnessOperations[1].key'],
    // Harness Operations
    ['33 Harness Operations', (c) => (c.harnessOperations = repeat(33, (i) => operation(`op${i}`))), 'config.harnessOperations'],
    ['an uppercase Harness Operation key', (c) => (c.harnessOperations[0].key = 'Summarize'), 'config.harnessOperations[0].key'],
    ['a Harness Operation key starting with a digit', (c) => (c.harnessOperations[0].key = '1sum'), 'config.harnessOperations[0].key'],
    ['a 65-character Harness Operation key', (c) => (c.harnessOperations[0].key = letters(65)), 'config.harnessOperations[0].key'],
    ['an empty Harness Operation description', (c) => (c.harnessOperations[0].description = ''), 'config.harnessOperations[0].description'],
    ['empty instructions', (c) => (c.harnessOperations[0].instructions = ''), 'config.harnessOperations[0].instructions'],
    ['instructions over 100,000 characters', (c) => (c.harnessOperations[0].instructions = letters(100_001)), 'config.harnessOperations[0].instructions'],
    ['a Harness Operation timeout of 999 ms', (c) => (c.harnessOperations[0].timeoutMs = 999), 'config.harnessOperations[0].timeoutMs'],
    ['a Harness Operation timeout of 300,001 ms', (c) => (c.harnessOperations[0].timeoutMs = 300_001), 'config.harnessOperations[0].timeoutMs'],
    ['a fractional Harness Operation timeout', (c) => (c.harnessOperations[0].timeoutMs = 1500.5), 'config.harnessOperations[0].timeoutMs'],
    ['a missing resultSchema', (c) => delete c.harnessOperations[0].resultSchema, 'config.harnessOperations[0].resultSchema'],
    [
      'a resultSchema whose root is an array',
      (c) => (c.harnessOperations[0].resultSchema = { type: 'array', items: { type: 'string' } }),
      'config.harnessOperations[0].resultSchema.type',
    ],
    ['a Harness Operation with its own model', (c) => (c.harnessOperations[0].model = 'fast'), 'config.harnessOperations[0].model'],
    ['a Harness Operation with an input schema', (c) => (c.harnessOperations[0].inputSchema = { type: 'object' }), 'config.harnessOperations[0].inputSchema'],
    // Skills
    ['a Skill version id that is not a UUID', (c) => (c.skillVersionIds = ['skill-a']), 'config.skillVersionIds[0]'],
    ['a repeated Skill version id', (c) => (c.skillVersionIds = [ids.skillA, ids.skillB, ids.skillA]), 'config.skillVersionIds[2]'],
    ['a Skill version id repeated in another case', (c) => (c.skillVersionIds = [ids.skillA, ids.skillA.toUpperCase()]), 'config.skillVersionIds[1]'],
    // MCP bindings
    ['an uppercase MCP namespace', (c) => (c.mcpBindings[0].namespace = 'Crm'), 'config.mcpBindings[0].namespace'],
    ['an MCP namespace with a doubled underscore', (c) => (c.mcpBindings[0].namespace = 'crm__eu'), 'config.mcpBindings[0].namespace'],
    ['an MCP namespace with a trailing underscore', (c) => (c.mcpBindings[0].namespace = 'crm_'), 'config.mcpBindings[0].namespace'],
    ['an MCP namespace starting with a digit', (c) => (c.mcpBindings[0].namespace = '1crm'), 'config.mcpBindings[0].namespace'],
    ['an MCP namespace with a dash', (c) => (c.mcpBindings[0].namespace = 'crm-eu'), 'config.mcpBindings[0].namespace'],
    ['a 65-character MCP namespace', (c) => (c.mcpBindings[0].namespace = `n${letters(64)}`), 'config.mcpBindings[0].namespace'],
    ['a repeated MCP namespace', (c) => c.mcpBindings.push({ ...c.mcpBindings[0], toolsetVersionId: ids.skillB }), 'config.mcpBindings[1].namespace'],
    ['a toolset version id that is not a UUID', (c) => (c.mcpBindings[0].toolsetVersionId = 'crm'), 'config.mcpBindings[0].toolsetVersionId'],
    ['a missing credential policy version id', (c) => delete c.mcpBindings[0].credentialPolicyVersionId, 'config.mcpBindings[0].credentialPolicyVersionId'],
    // Delegates
    ['33 delegates', (c) => (c.delegates = repeat(33, (i) => delegate(`d${i}`, uuid(i)))), 'config.delegates'],
    ['a repeated delegate key', (c) => c.delegates.push(delegate('researcher', ids.otherChildVersion)), 'config.delegates[1].key'],
    ['a repeated delegate version', (c) => c.delegates.push(delegate('writer', ids.childVersion)), 'config.delegates[1].agentVersionId'],
    ['an invalid delegate key', (c) => (c.delegates[0].key = 'Research Team'), 'config.delegates[0].key'],
    ['an empty delegate description', (c) => (c.delegates[0].description = ''), 'config.delegates[0].description'],
    ['a delegate version id that is not a UUID', (c) => (c.delegates[0].agentVersionId = 'latest'), 'config.delegates[0].agentVersionId'],
    ['maxParallel 0', (c) => (c.delegates[0].maxParallel = 0), 'config.delegates[0].maxParallel'],
    ['maxParallel 9', (c) => (c.delegates[0].maxParallel = 9), 'config.delegates[0].maxParallel'],
    ['a missing maxParallel', (c) => delete c.delegates[0].maxParallel, 'config.delegates[0].maxParallel'],
    ['a delegate with neither a version nor self', (c) => delete c.delegates[0].agentVersionId, 'config.delegates[0]'],
    ['a delegate with both a version and self', (c) => (c.delegates[0].self = true), 'config.delegates[0]'],
    ['self: false', (c) => (c.delegates[0] = { ...delegate('copy', ids.childVersion), agentVersionId: undefined, self: false }), 'config.delegates[0].self'],
    [
      'two self delegates',
      (c) =>
        (c.delegates = [
          { ...delegate('one', ids.childVersion), agentVersionId: undefined, self: true },
          { ...delegate('two', ids.childVersion), agentVersionId: undefined, self: true },
        ]),
      'config.delegates[1].self',
    ],
    // Sandbox
    ['a sandbox without enabled', (c) => delete c.sandbox.enabled, 'config.sandbox.enabled'],
    ['a non-boolean enabled', (c) => (c.sandbox.enabled = 'yes'), 'config.sandbox.enabled'],
    ['a sandbox without the provider field', (c) => ((c.sandbox = { enabled: false, capabilities: [] }), void 0), 'config.sandbox.provider'],
    ['an enabled sandbox without a provider', (c) => (c.sandbox.provider = null), 'config.sandbox.provider'],
    ['an enabled sandbox without a snapshot', (c) => delete c.sandbox.snapshotId, 'config.sandbox.snapshotId'],
    ['a snapshotId that is not a UUID', (c) => (c.sandbox.snapshotId = 'ubuntu-24'), 'config.sandbox.snapshotId'],
    ['an unknown network policy', (c) => (c.sandbox.network = 'open'), 'config.sandbox.network'],
    ['a sandbox without capabilities', (c) => delete c.sandbox.capabilities, 'config.sandbox.capabilities'],
    ['an unknown capability', (c) => (c.sandbox.capabilities = ['shell', 'gpu']), 'config.sandbox.capabilities[1]'],
    ['a repeated capability', (c) => (c.sandbox.capabilities = ['shell', 'shell']), 'config.sandbox.capabilities[1]'],
    ['a null sandbox', (c) => (c.sandbox = null), 'config.sandbox'],
    // Limits
    ['missing limits', (c) => delete c.limits, 'config.limits'],
    ['a missing maxTurns', (c) => delete c.limits.maxTurns, 'config.limits.maxTurns'],
    ['maxTurns 0', (c) => (c.limits.maxTurns = 0), 'config.limits.maxTurns'],
    ['maxTurns 257', (c) => (c.limits.maxTurns = 257), 'config.limits.maxTurns'],
    ['a fractional maxTurns', (c) => (c.limits.maxTurns = 1.5), 'config.limits.maxTurns'],
    ['timeoutMs 999', (c) => (c.limits.timeoutMs = 999), 'config.limits.timeoutMs'],
    ['a string timeoutMs', (c) => (c.limits.timeoutMs = '60000'), 'config.limits.timeoutMs'],
  ];

  it.each(rejected)('%s', (_name, mutate, path) => {
    const config = validConfig();
    mutate(config);
    expectBadRequest(() => parseAgentConfig(config), path);
  });

  it('a value that is not an object, at the root path', () => {
    expectBadRequest(() => parseAgentConfig('config'), 'config', /must be an object/);
  });

  it('prefixes paths with the given root', () => {
    const config = validConfig();
    config.limits.maxTurns = 0;
    expectBadRequest(() => parseAgentConfig(config, { root: 'initialConfig' }), 'initialConfig.limits.maxTurns', /integer from 1 to 256/);
  });

  it('says which field is unknown, missing or out of range', () => {
    const unknown = validConfig();
    unknown.tools[0].strict = true;
    expectBadRequest(() => parseAgentConfig(unknown), 'config.tools[0].strict', /is not a recognized field/);
    const missing = validConfig();
    delete missing.limits;
    expectBadRequest(() => parseAgentConfig(missing), 'config.limits', /is required/);
    const namespace = validConfig();
    namespace.tools.push(tool('bash'));
    expectBadRequest(() => parseAgentConfig(namespace), 'config.tools[1].name', /sandbox tool of the enabled "shell" capability/);
  });
});
