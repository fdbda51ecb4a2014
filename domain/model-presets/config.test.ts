import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import type { CatalogEntry } from '../model-catalog/types.ts';
import { checkPresetAgainstCatalog, normalizePresetConfig } from './config.ts';
import { parseDeploymentPresets } from './deployment-file.ts';

function failure(fn: () => unknown): { message: string; path: string } {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return { message: (error as ValidationError).message, path: (error as ValidationError).details!.path as string };
  }
  throw new Error('expected a ValidationError');
}

describe('settings defaults', () => {
  it.each([
    ['vendor_a', { textFormat: 'text', mode: 'standard', effort: 'medium', verbosity: 'medium', summary: 'auto' }],
    ['vendor_b', { thinking: 'adaptive', maxTokens: 20000, effort: 'high' }],
    ['vendor_c', { textFormat: 'text', effort: 'high' }],
  ] as const)('%s stores the defaults when settings are omitted, null or empty', (type, defaults) => {
    for (const settings of [undefined, null, {}]) {
      expect(normalizePresetConfig(type, { model: `${type}/m`, settings }, 'body').settings).toEqual(defaults);
    }
  });

  it('fills missing fields of partial settings', () => {
    expect(normalizePresetConfig('vendor_b', { model: 'vendor_b/m', settings: { effort: 'low' } }, 'body').settings).toEqual({
      thinking: 'adaptive',
      maxTokens: 20000,
      effort: 'low',
    });
  });
});

describe('settings value sets', () => {
  const valid: Array<[string, string, unknown[]]> = [
    ['vendor_a', 'textFormat', ['text']],
    ['vendor_a', 'mode', ['standard', 'pro']],
    ['vendor_a', 'effort', ['none', 'low', 'medium', 'high', 'xhigh', 'max']],
    ['vendor_a', 'verbosity', ['low', 'medium', 'high']],
    ['vendor_a', 'summary', ['auto', 'concise', 'detailed']],
    ['vendor_b', 'thinking', ['disabled', 'adaptive']],
    ['vendor_b', 'maxTokens', [1, 20000, 300000]],
    ['vendor_b', 'effort', ['low', 'medium', 'high', 'xhigh', 'max']],
    ['vendor_c', 'textFormat', ['text']],
    ['vendor_c', 'effort', ['low', 'medium', 'high', 'xhigh']],
  ];
  it.each(valid)('%s %s accepts every listed value', (type, field, values) => {
    for (const value of values) {
      const config = normalizePresetConfig(type as 'vendor_a', { model: `${type}/m`, settings: { [field]: value } }, 'body');
      expect(config.settings![field]).toBe(value);
    }
  });

  const invalid: Array<[string, string, unknown]> = [
    ['vendor_a', 'textFormat', 'json'],
    ['vendor_a', 'mode', 'fast'],
    ['vendor_a', 'effort', 'minimal'],
    ['vendor_a', 'verbosity', 'max'],
    ['vendor_a', 'summary', 'none'],
    ['vendor_b', 'thinking', 'enabled'],
    ['vendor_b', 'maxTokens', 0],
    ['vendor_b', 'maxTokens', 300001],
    ['vendor_b', 'maxTokens', 1.5],
    ['vendor_b', 'maxTokens', '100'],
    ['vendor_b', 'effort', 'none'],
    ['vendor_b', 'budgetTokens', 1024],
    ['vendor_c', 'effort', 'none'],
    ['vendor_c', 'effort', 'max'],
    ['vendor_c', 'textFormat', 'markdown'],
  ];
  it.each(invalid)('%s %s refuses %j with details.path', (type, field, value) => {
    const { path } = failure(() => normalizePresetConfig(type as 'vendor_a', { model: `${type}/m`, settings: { [field]: value } }, 'body'));
    expect(path).toBe(`body.settings.${field}`);
  });
});

describe('routing', () => {
  it('vendors require an empty routing object', () => {
    expect(normalizePresetConfig('vendor_a', { model: 'vendor_a/m', routing: {} }, 'body').routing).toEqual({});
    expect(failure(() => normalizePresetConfig('vendor_a', { model: 'vendor_a/m', routing: { sort: 'price' } }, 'body')).path).toBe('body.routing.sort');
  });

  it('gateway accepts the full policy and refuses a settings object', () => {
    const routing = {
      allowFallbacks: false,
      requireParameters: true,
      dataCollection: 'deny',
      zeroDataRetention: true,
      providerOrder: ['anthropic', 'google-vertex'],
      providerAllowlist: ['anthropic', 'deepinfra/fp8'],
      providerDenylist: ['together'],
      sort: 'throughput',
      maxPromptPriceUsdPerMillion: 0,
      maxCompletionPriceUsdPerMillion: 1_000_000,
    };
    const config = normalizePresetConfig('gateway', { model: 'gateway/openai/gpt-4o', routing }, 'body');
    expect(config).toMatchObject({ routing, settings: null, catalogId: 'openai/gpt-4o', savedGatewayPreset: false });
    expect(failure(() => normalizePresetConfig('gateway', { model: 'gateway/x', settings: {} }, 'body')).path).toBe('body.settings');
    expect(normalizePresetConfig('gateway', { model: 'gateway/x', settings: null }, 'body').settings).toBeNull();
  });

  it.each([
    [{ allowFallbacks: 'yes' }, 'allowFallbacks'],
    [{ dataCollection: 'maybe' }, 'dataCollection'],
    [{ zeroDataRetention: 1 }, 'zeroDataRetention'],
    [{ providerOrder: [] }, 'providerOrder'],
    [{ providerOrder: ['a', 'a'] }, 'providerOrder'],
    [{ providerAllowlist: Array.from({ length: 17 }, (_, i) => `p${i}`) }, 'providerAllowlist'],
    [{ providerDenylist: ['Bad Slug'] }, 'providerDenylist.0'],
    [{ sort: 'cost' }, 'sort'],
    [{ maxPromptPriceUsdPerMillion: -1 }, 'maxPromptPriceUsdPerMillion'],
    [{ maxCompletionPriceUsdPerMillion: 1_000_001 }, 'maxCompletionPriceUsdPerMillion'],
    [{ unknown: true }, 'unknown'],
    [{ providerAllowlist: ['a'], providerDenylist: ['a'] }, 'providerDenylist'],
  ])('gateway refuses %j at %s', (routing, field) => {
    expect(failure(() => normalizePresetConfig('gateway', { model: 'gateway/x', routing }, 'body')).path).toBe(`body.routing.${field}`);
  });
});

describe('model identifiers', () => {
  it('must carry the provider type prefix', () => {
    expect(failure(() => normalizePresetConfig('vendor_a', { model: 'gpt-5' }, 'body')).path).toBe('body.model');
    expect(failure(() => normalizePresetConfig('vendor_a', { model: 'vendor_b/claude' }, 'body')).path).toBe('body.model');
    expect(failure(() => normalizePresetConfig('vendor_a', { model: 'vendor_a/' }, 'body')).path).toBe('body.model');
  });

  it('accepts saved gateway presets by slug pattern', () => {
    expect(normalizePresetConfig('gateway', { model: 'gateway/@preset/my-preset' }, 'body').savedGatewayPreset).toBe(true);
    expect(failure(() => normalizePresetConfig('gateway', { model: 'gateway/@preset/Bad Slug' }, 'body')).path).toBe('body.model');
  });
});

describe('catalog checks', () => {
  const entry = (overrides: Partial<CatalogEntry>): CatalogEntry => ({
    providerType: 'vendor_b',
    model: 'vendor_b/m',
    catalogId: 'm',
    displayName: 'M',
    contextWindow: 200000,
    outputLimit: 64000,
    reasoning: true,
    adaptiveThinking: true,
    thinkingCanBeDisabled: true,
    effortLevels: ['low', 'medium', 'high'],
    runtimeSupported: true,
    ...overrides,
  });
  const b = (settings: Record<string, unknown>) => normalizePresetConfig('vendor_b', { model: 'vendor_b/m', settings }, 'body');

  it('accepts a supported combination', () => {
    expect(() => checkPresetAgainstCatalog(b({}), entry({}), 'body')).not.toThrow();
  });

  it.each([
    ['a model outside the catalog', b({}), undefined, 'body.model'],
    ['runtimeSupported false', b({}), entry({ runtimeSupported: false }), 'body.model'],
    ['maxTokens above the output limit', b({ maxTokens: 64001 }), entry({}), 'body.settings.maxTokens'],
    ['an unsupported effort', b({ effort: 'max' }), entry({}), 'body.settings.effort'],
    ['adaptive thinking on a model without it', b({}), entry({ adaptiveThinking: false }), 'body.settings.thinking'],
    ['disabled thinking on a model that cannot disable it', b({ thinking: 'disabled' }), entry({ thinkingCanBeDisabled: false }), 'body.settings.thinking'],
  ] as const)('refuses %s', (_name, config, catalogEntry, path) => {
    expect(failure(() => checkPresetAgainstCatalog(config, catalogEntry, 'body')).path).toBe(path);
  });

  it('refuses effort none where thinking cannot be disabled (vendor_a)', () => {
    const config = normalizePresetConfig('vendor_a', { model: 'vendor_a/gpt-5', settings: { effort: 'none' } }, 'body');
    const a = entry({ providerType: 'vendor_a', model: 'vendor_a/gpt-5', thinkingCanBeDisabled: false, effortLevels: null });
    expect(failure(() => checkPresetAgainstCatalog(config, a, 'body')).message).toContain('effort none');
  });

  it('does not hold unknown capabilities against a preset', () => {
    const unknown = entry({ outputLimit: null, effortLevels: null, adaptiveThinking: null, thinkingCanBeDisabled: null });
    expect(() => checkPresetAgainstCatalog(b({ maxTokens: 300000, effort: 'max' }), unknown, 'body')).not.toThrow();
  });
});

describe('deployment presets file', () => {
  it('parses entries, derives the provider type and applies defaults', () => {
    const [preset] = parseDeploymentPresets([{ key: 'fast', displayName: 'Fast', providerKey: 'openai', model: 'vendor_a/gpt-5-mini' }]);
    expect(preset).toMatchObject({ key: 'fast', providerKey: 'openai', providerType: 'vendor_a', routing: {}, settings: { effort: 'medium' } });
  });

  it.each([
    [{}, 'presets'],
    [[{ key: 'Bad', displayName: 'x', providerKey: 'p', model: 'vendor_a/m' }], 'presets[0].key'],
    [[{ key: 'a', displayName: 'x', providerKey: 'p', model: 'other/m' }], 'presets[0].model'],
    [[{ key: 'a', displayName: 'x', providerKey: 'p', model: 'vendor_c/m', settings: { effort: 'none' } }], 'presets[0].settings.effort'],
    [
      [
        { key: 'a', displayName: 'x', providerKey: 'p', model: 'vendor_a/m' },
        { key: 'a', displayName: 'y', providerKey: 'p', model: 'vendor_a/m' },
      ],
      'presets[1].key',
    ],
  ])('refuses %j at %s', (json, path) => {
    expect(failure(() => parseDeploymentPresets(json)).path).toBe(path);
  });
});
