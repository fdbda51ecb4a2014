import { describe, expect, it } from 'vitest';
import { canonicalAgentConfig } from './canonical.ts';
import { parseAgentConfig } from './parse.ts';
import { ids, tool, validConfig } from './test-fixtures.ts';
import { toolsOf } from './tools.ts';

const minimal = { systemPrompt: 'Be brief.', modelPreset: 'default', limits: { maxTurns: 4 } };

describe('canonicalAgentConfig', () => {
  it('is sorted, compact JSON of the config with defaults applied', () => {
    expect(canonicalAgentConfig(parseAgentConfig(minimal))).toBe(
      '{"delegates":[],"harnessOperations":[],"limits":{"maxTurns":4,"timeoutMs":60000},"mcpBindings":[],"modelPreset":"default",' +
        '"sandbox":{"capabilities":[],"enabled":false,"network":"none","provider":null,"snapshotId":null},"skillVersionIds":[],' +
        '"systemPrompt":"Be brief.","tools":[]}',
    );
  });

  it('hashes explicit defaults, key order, UUID case and 1.0 the same as their plain form', () => {
    const explicit = JSON.parse(
      '{"limits":{"timeoutMs":60000.0,"maxTurns":4.0},"tools":[],"modelPreset":"default","systemPrompt":"Be brief.",' +
        '"sandbox":{"capabilities":[],"provider":null,"enabled":false,"snapshotId":null,"network":"none"}}',
    );
    expect(canonicalAgentConfig(parseAgentConfig(explicit))).toBe(canonicalAgentConfig(parseAgentConfig(minimal)));
    const upper = validConfig();
    upper.skillVersionIds = [ids.skillA.toUpperCase()];
    upper.tools[0].schemaVersion = 1;
    upper.tools[0].outputSchema = { type: 'object', additionalProperties: true, required: [], properties: {} };
    expect(canonicalAgentConfig(parseAgentConfig(upper))).toBe(canonicalAgentConfig(parseAgentConfig(validConfig())));
  });

  it('sorts keys inside tool schemas too', () => {
    const reordered = validConfig();
    reordered.tools[0].inputSchema = { required: ['query'], properties: { query: { type: 'string' } }, type: 'object' };
    expect(canonicalAgentConfig(parseAgentConfig(reordered))).toBe(canonicalAgentConfig(parseAgentConfig(validConfig())));
  });

  it('keeps authored array order, so reordering tools changes the hash input', () => {
    const one = validConfig();
    one.tools.push(tool('second'));
    const other = validConfig();
    other.tools.unshift(tool('second'));
    expect(canonicalAgentConfig(parseAgentConfig(one))).not.toBe(canonicalAgentConfig(parseAgentConfig(other)));
  });

  it('is stable across a store-and-reparse round trip', () => {
    const parsed = parseAgentConfig(validConfig());
    const stored = JSON.parse(JSON.stringify(parsed));
    expect(canonicalAgentConfig(parseAgentConfig(stored))).toBe(canonicalAgentConfig(parsed));
  });
});

describe('toolsOf', () => {
  it('lists name, description, owner and approval in authored order, without schemas', () => {
    const config = validConfig();
    config.tools.push(tool('approve_refund', { owner: 'platform', approval: 'always' }));
    expect(toolsOf(parseAgentConfig(config))).toEqual([
      { name: 'lookup_order', description: 'The lookup_order tool', owner: 'caller', approval: 'never' },
      { name: 'approve_refund', description: 'The approve_refund tool', owner: 'platform', approval: 'always' },
    ]);
  });
});
