import { describe, expect, it } from 'vitest';
import { sandboxToolsFor } from './tools.ts';

const policy = (capabilities: Array<'filesystem_read' | 'filesystem_write' | 'shell' | 'browser'>, enabled = true) => ({
  enabled,
  provider: 'local',
  snapshotId: '5a9d0c4e-6b1f-4c3a-9e2d-7f8a1b2c3d4e',
  network: 'none' as const,
  capabilities,
});

describe('sandboxToolsFor', () => {
  it.each([
    [['filesystem_read'], ['read']],
    [['filesystem_write'], ['write', 'edit']],
    [['shell'], ['bash', 'grep', 'glob']],
    [['browser'], ['browser_navigate', 'browser_snapshot', 'browser_interact']],
    [
      ['browser', 'filesystem_read', 'shell', 'filesystem_write'],
      ['read', 'write', 'edit', 'bash', 'grep', 'glob', 'browser_navigate', 'browser_snapshot', 'browser_interact'],
    ],
  ] as const)('%j mounts %j', (capabilities, tools) => {
    expect(sandboxToolsFor(policy([...capabilities])).map((tool) => tool.name)).toEqual(tools);
  });

  it('mounts nothing while the sandbox is disabled', () => {
    expect(sandboxToolsFor(policy(['shell', 'browser'], false))).toEqual([]);
  });

  it('gives every tool an object input schema without extra properties', () => {
    for (const tool of sandboxToolsFor(policy(['filesystem_read', 'filesystem_write', 'shell', 'browser']))) {
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.description.length).toBeGreaterThan(10);
    }
  });
});
