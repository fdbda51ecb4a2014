import { describe, expect, it } from 'vitest';
import { filterCatalog } from './filter.ts';
import { toGatewayEntry } from './gateway.ts';
import { toVendorAEntry } from './vendor-a.ts';
import { toVendorBEntry } from './vendor-b.ts';
import { toVendorCEntry } from './vendor-c.ts';

describe('vendor_a mapping', () => {
  it.each([
    ['gpt-5.1', true],
    ['gpt-4o-2024-08-06', true],
    ['o3-mini', true],
    ['text-embedding-3-large', false],
    ['whisper-1', false],
    ['dall-e-3', false],
    ['gpt-image-1', false],
    ['omni-moderation-latest', false],
    ['gpt-4o-realtime-preview', false],
    ['gpt-4o-mini-tts', false],
    ['gpt-3.5-turbo-instruct', false],
  ])('%s runtimeSupported=%s', (id, supported) => {
    expect(toVendorAEntry({ id }).runtimeSupported).toBe(supported);
  });

  it('completes metadata from the curated table', () => {
    expect(toVendorAEntry({ id: 'gpt-5-mini-2025-08-07' })).toMatchObject({
      model: 'vendor_a/gpt-5-mini-2025-08-07',
      reasoning: true,
      thinkingCanBeDisabled: false,
      effortLevels: ['low', 'medium', 'high'],
      outputLimit: 128000,
    });
    expect(toVendorAEntry({ id: 'unknown-model' })).toMatchObject({ contextWindow: null, outputLimit: null, reasoning: null, effortLevels: null });
  });
});

describe('vendor_b mapping', () => {
  const effort = (levels: string[]) => ({
    supported: levels.length > 0,
    ...Object.fromEntries(['low', 'medium', 'high', 'xhigh', 'max'].map((level) => [level, { supported: levels.includes(level) }])),
  });
  it('reads limits, thinking and effort from the capabilities', () => {
    const entry = toVendorBEntry({
      id: 'claude-opus-4-6',
      display_name: 'Claude Opus 4.6',
      max_input_tokens: 200000,
      max_tokens: 128000,
      capabilities: {
        thinking: { supported: true, types: { adaptive: { supported: true }, enabled: { supported: true } } },
        effort: effort(['low', 'medium', 'high', 'max']),
      },
    });
    expect(entry).toEqual({
      providerType: 'vendor_b',
      model: 'vendor_b/claude-opus-4-6',
      catalogId: 'claude-opus-4-6',
      displayName: 'Claude Opus 4.6',
      contextWindow: 200000,
      outputLimit: 128000,
      reasoning: true,
      adaptiveThinking: true,
      thinkingCanBeDisabled: true,
      effortLevels: ['low', 'medium', 'high', 'max'],
      runtimeSupported: true,
    });
  });

  it('a model supporting no effort level cannot back a preset', () => {
    const entry = toVendorBEntry({
      id: 'claude-3-haiku-20240307',
      max_tokens: 4096,
      capabilities: { thinking: { supported: false, types: {} }, effort: effort([]) },
    });
    expect(entry).toMatchObject({ effortLevels: [], reasoning: false, runtimeSupported: false });
  });

  it('adaptive-only lines cannot disable thinking; missing capabilities stay unknown', () => {
    expect(
      toVendorBEntry({ id: 'claude-mythos-5', capabilities: { thinking: { supported: true, types: { adaptive: { supported: true } } } } })
        .thinkingCanBeDisabled,
    ).toBe(false);
    expect(toVendorBEntry({ id: 'claude-x', capabilities: null })).toMatchObject({
      reasoning: null,
      adaptiveThinking: null,
      effortLevels: null,
      runtimeSupported: true,
    });
  });
});

describe('vendor_c mapping', () => {
  it.each([
    [{ name: 'models/gemini-2.5-pro', supportedGenerationMethods: ['generateContent'], thinking: true }, true],
    [{ name: 'models/gemini-2.0-flash', supportedGenerationMethods: ['generateContent'], thinking: false }, false],
    [{ name: 'models/text-embedding-004', supportedGenerationMethods: ['embedContent'] }, false],
    [{ name: 'models/gemini-2.5-flash-image', supportedGenerationMethods: ['generateContent'], thinking: true }, false],
  ])('%j runtimeSupported=%s', (model, supported) => {
    expect(toVendorCEntry(model).runtimeSupported).toBe(supported);
  });

  it('strips models/ and reads limits', () => {
    expect(
      toVendorCEntry({
        name: 'models/gemini-2.5-pro',
        displayName: 'Gemini 2.5 Pro',
        inputTokenLimit: 1048576,
        outputTokenLimit: 65536,
        thinking: true,
        supportedGenerationMethods: ['generateContent'],
      }),
    ).toMatchObject({
      model: 'vendor_c/gemini-2.5-pro',
      catalogId: 'gemini-2.5-pro',
      contextWindow: 1048576,
      outputLimit: 65536,
      reasoning: true,
      thinkingCanBeDisabled: false,
      effortLevels: ['low', 'medium', 'high'],
    });
  });
});

describe('gateway mapping', () => {
  it('reads OpenRouter fields', () => {
    const entry = toGatewayEntry({
      id: 'anthropic/claude-sonnet-4.5',
      name: 'Anthropic: Claude Sonnet 4.5',
      context_length: 1000000,
      architecture: { input_modalities: ['text', 'image'], output_modalities: ['text'] },
      top_provider: { context_length: 1000000, max_completion_tokens: 64000 },
      supported_parameters: ['tools', 'reasoning', 'max_tokens'],
      pricing: { prompt: '0.000003', completion: '0.000015', input_cache_read: '0.0000003', input_cache_write: '0.00000375' },
    });
    expect(entry).toEqual({
      providerType: 'gateway',
      model: 'gateway/anthropic/claude-sonnet-4.5',
      catalogId: 'anthropic/claude-sonnet-4.5',
      displayName: 'Anthropic: Claude Sonnet 4.5',
      contextWindow: 1000000,
      outputLimit: 64000,
      reasoning: true,
      pricesUsd: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      runtimeSupported: true,
    });
  });

  it('reads fixed prices only: none, a variable (-1) or a malformed price gives null', () => {
    expect(toGatewayEntry({ id: 'x/free', pricing: { prompt: '0', completion: '0' } }).pricesUsd).toEqual({
      input: 0,
      output: 0,
      cacheRead: null,
      cacheWrite: null,
    });
    expect(toGatewayEntry({ id: 'x/none' }).pricesUsd).toBeNull();
    expect(toGatewayEntry({ id: 'openrouter/auto', pricing: { prompt: '-1', completion: '-1' } }).pricesUsd).toBeNull();
    expect(toGatewayEntry({ id: 'x/bad', pricing: { prompt: 'cheap', completion: '0.000001' } }).pricesUsd).toBeNull();
  });

  it('models without tools or text output are not runtime-supported; unknown limits are null', () => {
    expect(toGatewayEntry({ id: 'x/no-tools', supported_parameters: ['max_tokens'] }).runtimeSupported).toBe(false);
    expect(toGatewayEntry({ id: 'x/image', architecture: { modality: 'text->image' } }).runtimeSupported).toBe(false);
    expect(toGatewayEntry({ id: 'x/bare' })).toMatchObject({ contextWindow: null, outputLimit: null, reasoning: null, runtimeSupported: true });
  });
});

describe('filterCatalog', () => {
  const entries = ['gpt-5', 'gpt-4o', 'o3'].map((id) => toVendorAEntry({ id }));
  it('searches model and display name case-insensitively and cuts to limit', () => {
    expect(filterCatalog(entries, { search: 'GPT', limit: 1 })).toMatchObject({ total: 2, data: [{ catalogId: 'gpt-5' }] });
    expect(filterCatalog(entries, { limit: 50 }).total).toBe(3);
  });
});
