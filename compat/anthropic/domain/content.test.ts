import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../domain/errors.ts';
import { turnFields, userMessageTurn } from './content.ts';
import { renderToolset, toolsetOf } from './toolset.ts';

const upload = '44444444-4444-4444-8444-444444444444';
const message = (content: unknown[]) => ({ type: 'user.message', content });
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return (error.details as { path?: string }).path;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('a user.message as one of our turns', () => {
  it('text blocks are the text; inline bytes and uploads are files, in order; a text document is text', () => {
    const turn = userMessageTurn(
      message([
        { type: 'text', text: 'Look' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
        { type: 'document', source: { type: 'file', file_id: upload.toUpperCase() } },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Body' }, title: 'Memo' },
      ]),
      'events.0',
    );
    expect(turn).toEqual({ text: 'Look\n\nMemo\nBody', files: [{ name: 'image-2.png', contentType: 'image/png', dataBase64: 'iVBO' }, { uploadId: upload }] });
    expect(turnFields(turn, 'message')).toEqual({ message: 'Look\n\nMemo\nBody', files: turn.files });
    expect(turnFields(userMessageTurn(message([{ type: 'image', source: { type: 'file', file_id: upload } }]), 'x'), 'initialMessage')).toEqual({
      files: [{ uploadId: upload }],
    });
  });

  it('refuses what it cannot take, naming the block', () => {
    expect(refusal(() => userMessageTurn(message([{ type: 'image', source: { type: 'url', url: 'https://x' } }]), 'events.0'))).toBe(
      'body.events.0.content.0.source',
    );
    expect(refusal(() => userMessageTurn(message([{ type: 'image', source: { type: 'base64', media_type: 'image/tiff', data: 'x' } }]), 'events.0'))).toBe(
      'body.events.0.content.0.source.media_type',
    );
    // Names of Object.prototype's members are media types like any other unknown one.
    for (const mediaType of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(refusal(() => userMessageTurn(message([{ type: 'image', source: { type: 'base64', media_type: mediaType, data: 'x' } }]), 'events.0'))).toBe(
        'body.events.0.content.0.source.media_type',
      );
    }
    expect(refusal(() => userMessageTurn(message([{ type: 'image', source: { type: 'file', file_id: `att_${upload}` } }]), 'events.0'))).toBe(
      'body.events.0.content.0.source.file_id',
    );
    expect(refusal(() => userMessageTurn(message([{ type: 'tool_result' }]), 'events.0'))).toBe('body.events.0.content.0.type');
    expect(refusal(() => userMessageTurn(message([{ type: 'text', text: '  ' }]), 'events.0'))).toBe('body.events.0.content');
  });
});

describe('agent_toolset_20260401 as our sandbox', () => {
  it('enables capabilities by tool; web tools are off unless asked, which is refused', () => {
    expect(toolsetOf({ type: 'agent_toolset_20260401' }, 'tools.0')).toEqual({ capabilities: ['shell', 'filesystem_write', 'filesystem_read'] });
    expect(toolsetOf({ type: 'agent_toolset_20260401', default_config: { enabled: false }, configs: [{ name: 'read', enabled: true }] }, 'tools.0')).toEqual({
      capabilities: ['filesystem_read'],
    });
    expect(refusal(() => toolsetOf({ type: 'agent_toolset_20260401', configs: [{ name: 'web_fetch', enabled: true }] }, 'tools.0'))).toBe(
      'body.tools.0.configs.0.enabled',
    );
    expect(refusal(() => toolsetOf({ type: 'agent_toolset_20260401', configs: [{ name: 'edit', enabled: false }] }, 'tools.0'))).toBe('body.tools.0.configs');
    expect(
      refusal(() => toolsetOf({ type: 'agent_toolset_20260401', configs: [{ name: 'bash', permission_policy: { type: 'always_ask' } }] }, 'tools.0')),
    ).toBe('body.tools.0.configs.0.permission_policy');
  });

  it('renders every tool resolved', () => {
    const rendered = renderToolset({ capabilities: ['filesystem_read'] });
    expect(rendered.configs.filter((config) => config.enabled).map((config) => config.name)).toEqual(['read']);
    expect(rendered.configs).toHaveLength(8);
  });
});
