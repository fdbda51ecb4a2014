import { describe, expect, it } from 'vitest';
import { httpError, MODEL_ERROR_CODES, modelError, safeVendorText, streamError } from './errors.ts';
import { toolCall, toolResultText } from './shared.ts';

describe('safeVendorText', () => {
  it('redacts the key, collapses whitespace and bounds the text to 500 characters', () => {
    expect(safeVendorText('bad key sk-123456\n\n  again sk-123456', 'sk-123456')).toBe('bad key [redacted] again [redacted]');
    expect(safeVendorText('x'.repeat(900), 'key-1234')).toHaveLength(500);
  });
});

describe('httpError', () => {
  const cases: Array<[string, number, string | undefined, string]> = [
    ['vendor_a', 401, 'invalid_api_key', 'provider_rejected_credential'],
    ['vendor_b', 403, 'permission_error', 'provider_rejected_credential'],
    ['gateway', 403, undefined, 'provider_refused_content'],
    ['vendor_c', 400, 'API_KEY_INVALID', 'provider_rejected_credential'],
    ['vendor_c', 400, 'INVALID_ARGUMENT', 'provider_rejected_request'],
    ['vendor_a', 429, 'insufficient_quota', 'provider_quota_exhausted'],
    ['vendor_a', 429, 'rate_limit_exceeded', 'provider_rate_limited'],
    ['gateway', 402, undefined, 'provider_quota_exhausted'],
    ['gateway', 408, undefined, 'provider_timeout'],
    ['vendor_b', 404, 'not_found_error', 'provider_rejected_request'],
    ['vendor_b', 413, 'request_too_large', 'provider_rejected_request'],
    ['vendor_b', 529, 'overloaded_error', 'provider_server_error'],
    ['vendor_c', 504, 'DEADLINE_EXCEEDED', 'provider_server_error'],
  ];
  it.each(cases)('%s HTTP %i (%s) → %s', (providerType, status, code, expected) => {
    const error = httpError(providerType as 'vendor_a', status, { message: 'vendor says no', code }, 'secret-key');
    expect(error.errorCode).toBe(expected);
    expect(error.retryable).toBe(MODEL_ERROR_CODES[expected as keyof typeof MODEL_ERROR_CODES]);
    expect(error.httpStatus).toBe(status);
  });

  it('never carries vendor text for a rejected credential (it may echo part of the key)', () => {
    const error = httpError('vendor_a', 401, { message: 'Incorrect API key provided: sk-pro****1234', code: 'invalid_api_key' }, 'sk-proj-full');
    expect(error.message).toBe('The vendor_a provider answered HTTP 401 (invalid_api_key)');
  });

  it('retryable follows the contract: transient yes, rejections no', () => {
    expect(modelError('provider_timeout', 'x').retryable).toBe(true);
    expect(modelError('provider_unreachable', 'x').retryable).toBe(true);
    expect(modelError('provider_rejected_request', 'x').retryable).toBe(false);
    expect(modelError('provider_refused_content', 'x').retryable).toBe(false);
  });
});

describe('streamError (an error event inside a 200 stream)', () => {
  const cases: Array<[string, string | undefined, number | null, string]> = [
    ['vendor_b', 'overloaded_error', null, 'provider_server_error'],
    ['vendor_b', 'api_error', null, 'provider_server_error'],
    ['vendor_b', 'rate_limit_error', null, 'provider_rate_limited'],
    ['vendor_b', 'billing_error', null, 'provider_quota_exhausted'],
    ['vendor_b', 'authentication_error', null, 'provider_rejected_credential'],
    ['vendor_b', 'invalid_request_error', null, 'provider_rejected_request'],
    ['vendor_a', 'rate_limit_exceeded', null, 'provider_rate_limited'],
    ['vendor_a', 'insufficient_quota', null, 'provider_quota_exhausted'],
    ['vendor_a', 'server_error', null, 'provider_server_error'],
    ['vendor_a', undefined, null, 'provider_server_error'],
    ['vendor_a', 'something_new', null, 'provider_server_error'],
    ['vendor_c', 'UNAVAILABLE', 503, 'provider_server_error'],
    ['vendor_c', 'RESOURCE_EXHAUSTED', 429, 'provider_rate_limited'],
  ];
  it.each(cases)('%s %s (%s) → %s', (providerType, code, status, expected) => {
    const error = streamError(providerType as 'vendor_a', { message: 'vendor says no', code, status }, 'secret-key');
    expect({ code: error.errorCode, retryable: error.retryable, status: error.httpStatus }).toEqual({
      code: expected,
      retryable: MODEL_ERROR_CODES[expected as keyof typeof MODEL_ERROR_CODES],
      status,
    });
  });

  it('redacts the key, bounds the vendor text and drops it for a rejected credential', () => {
    const error = streamError('vendor_b', { message: `overloaded for key sk-ant-secret ${'x'.repeat(900)}`, code: 'overloaded_error' }, 'sk-ant-secret');
    expect(error.message).not.toContain('sk-ant-secret');
    expect(error.message).toContain('[redacted]');
    expect(error.message.length).toBeLessThan(600);
    expect(streamError('vendor_b', { message: 'bad key sk-ant-secret', code: 'authentication_error' }, 'sk-ant-secret').message).toBe(
      'The vendor_b provider reported an error in its stream (authentication_error)',
    );
  });
});

describe('tool helpers', () => {
  it('parses arguments and keeps unparseable text raw', () => {
    expect(toolCall('c1', 'f', '{"a":1}')).toEqual({ id: 'c1', name: 'f', arguments: { a: 1 }, argumentsText: '{"a":1}' });
    expect(toolCall('c1', 'f', '{"a":')).toEqual({ id: 'c1', name: 'f', arguments: '{"a":', argumentsText: '{"a":' });
  });

  it('renders tool results as text, wrapping failures as {error}', () => {
    const base = { role: 'tool', toolCallId: 'c1', toolName: 'f' } as const;
    expect(toolResultText({ ...base, result: 'plain', isError: false })).toBe('plain');
    expect(toolResultText({ ...base, result: { ok: true }, isError: false })).toBe('{"ok":true}');
    expect(toolResultText({ ...base, result: 'boom', isError: true })).toBe('{"error":"boom"}');
    expect(toolResultText({ ...base, result: undefined, isError: false })).toBe('null');
  });
});
