import { describe, expect, it } from 'vitest';
import { assignToolNames, TOOL_NAME_MAX_LENGTH, toolNameOf } from './tool-names.ts';

describe('toolNameOf', () => {
  it('keeps an agent key, which is already a valid tool name', () => {
    expect(toolNameOf('support-bot_2')).toBe('support-bot_2');
    expect(toolNameOf('Mixed.Case-9')).toBe('Mixed.Case-9');
  });

  it('maps every character MCP does not allow to "_", one per character', () => {
    expect(toolNameOf('a b/c:d')).toBe('a_b_c_d');
    expect(toolNameOf('café')).toBe('caf_');
    expect(toolNameOf('rocket🚀')).toBe('rocket_');
  });

  it('cuts at 128 characters and never answers an empty name', () => {
    expect(toolNameOf('x'.repeat(200))).toBe('x'.repeat(TOOL_NAME_MAX_LENGTH));
    expect(toolNameOf('')).toBe('_');
  });
});

describe('assignToolNames', () => {
  it('gives each agent its name, in order; a name already taken goes to the first agent only', () => {
    const agents = [{ key: 'a b' }, { key: 'writer' }, { key: 'a_b' }];
    expect(assignToolNames(agents)).toEqual([
      { name: 'a_b', agent: agents[0] },
      { name: 'writer', agent: agents[1] },
    ]);
  });
});
