import { describe, expect, it } from 'vitest';
import type { StreamEvent } from './chat-http.ts';
import { httpError, MODEL_ERROR_CODES } from './errors.ts';
import { GatewayStream, parseGatewayResponse, readGatewayError } from './gateway/chat.ts';
import { decodeSse } from './sse.ts';
import { ModelInvocationError, type ModelRequest, type ProviderType } from './types.ts';
import { parseVendorAResponse, readVendorAError, VendorAStream } from './vendor-a/chat.ts';
import { readVendorBError, VendorBStream } from './vendor-b/chat.ts';
import { readVendorCError, VendorCStream } from './vendor-c/chat.ts';

// Each vendor's real context-overflow answer is provider_context_overflow, over HTTP and in the
// stream, with the vendor's sizes in the message; near misses keep their old codes.

const KEY = 'sk-test-secret-key';
const request = (providerType: ProviderType): ModelRequest => ({
  providerType,
  baseUrl: 'http://unused',
  apiKey: KEY,
  model: 'm',
  settings: null,
  routing: {},
  systemPrompt: '',
  messages: [],
  tools: [],
});

const READERS = { vendor_a: readVendorAError, vendor_b: readVendorBError, vendor_c: readVendorCError, gateway: readGatewayError } as const;

/** The error a non-2xx answer becomes, as postStream builds it. */
const http = (providerType: ProviderType, status: number, body: unknown) => httpError(providerType, status, READERS[providerType](body), KEY);

/** The error a stream's events become, fed to the protocol's assembler. */
function streamed(providerType: ProviderType, events: Array<[string | null, unknown]>): ModelInvocationError {
  const make = { vendor_a: VendorAStream, vendor_b: VendorBStream, vendor_c: VendorCStream, gateway: GatewayStream }[providerType];
  const stream = new make(request(providerType));
  const text = events.map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`).join('');
  try {
    for (const event of decodeSse(text)) if (event.type === 'message' && stream.push(event as StreamEvent)) break;
    stream.finish();
  } catch (error) {
    if (error instanceof ModelInvocationError) return error;
    throw error;
  }
  throw new Error('expected a ModelInvocationError');
}

const thrown = (fn: () => unknown): ModelInvocationError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ModelInvocationError) return error;
    throw error;
  }
  throw new Error('expected a ModelInvocationError');
};

const overflow = (error: ModelInvocationError, sizes: RegExp | string) => {
  expect({ code: error.errorCode, retryable: error.retryable }).toEqual({ code: 'provider_context_overflow', retryable: false });
  expect(error.message).toMatch(sizes);
  expect(error.message).not.toContain(KEY);
};

const OPENAI_RESPONSES = {
  error: {
    message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
    type: 'invalid_request_error',
    param: 'input',
    code: 'context_length_exceeded',
  },
};
const OPENAI_CHAT = {
  error: {
    message:
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.",
    type: 'invalid_request_error',
    param: 'messages',
    code: 'context_length_exceeded',
  },
};
const ANTHROPIC = { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 208310 tokens > 200000 maximum' } };
const GEMINI = {
  error: { code: 400, message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).', status: 'INVALID_ARGUMENT' },
};
const OPENROUTER = {
  error: {
    message:
      'This endpoint\'s maximum context length is 32768 tokens. However, you requested about 40000 tokens (39000 of text input, 1000 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
    code: 400,
  },
};
/** OpenRouter forwarding an upstream's refusal: the upstream body as JSON text in `metadata.raw`. */
const forwarded = (upstream: unknown, providerName: string, raw: 'text' | 'object' = 'text') => ({
  error: {
    message: 'Provider returned error',
    code: 400,
    metadata: { raw: raw === 'text' ? JSON.stringify(upstream) : upstream, provider_name: providerName },
  },
});

it('provider_context_overflow is a code of its own, not retried as it is', () => {
  expect(MODEL_ERROR_CODES.provider_context_overflow).toBe(false);
});

describe('vendor_a (OpenAI)', () => {
  it('HTTP 400 context_length_exceeded, in the Responses and the chat completions wording', () => {
    overflow(http('vendor_a', 400, OPENAI_RESPONSES), /HTTP 400 \(context_length_exceeded\): Your input exceeds the context window of this model/);
    overflow(http('vendor_a', 400, OPENAI_CHAT), /maximum context length is 128000 tokens\. However, your messages resulted in 130000 tokens/);
  });

  it('in the stream: a response.failed whose error is context_length_exceeded, and an error event', () => {
    const response = {
      id: 'resp_1',
      object: 'response',
      status: 'failed',
      output: [],
      error: { code: 'context_length_exceeded', message: OPENAI_CHAT.error.message },
      usage: null,
    };
    overflow(streamed('vendor_a', [['response.failed', { type: 'response.failed', response }]]), /failed \(context_length_exceeded\): .*130000 tokens/);
    overflow(
      thrown(() => parseVendorAResponse(request('vendor_a'), response)),
      /128000 tokens/,
    );
    overflow(streamed('vendor_a', [['error', { ...OPENAI_CHAT.error, type: 'error', sequence_number: 1 }]]), /130000 tokens/);
  });

  it('near misses stay what they were', () => {
    const tooLongString = {
      error: {
        message: "Invalid 'input[0].content': string too long. Expected a string with maximum length 10485760, but got a string with length 12000000 instead.",
        type: 'invalid_request_error',
        param: 'input[0].content',
        code: 'string_above_max_length',
      },
    };
    expect(http('vendor_a', 400, tooLongString).errorCode).toBe('provider_rejected_request');
    // OpenAI always sends its code: the wording alone, without it, is some other bad request.
    expect(http('vendor_a', 400, { error: { ...OPENAI_RESPONSES.error, code: null } }).errorCode).toBe('provider_rejected_request');
    expect(http('vendor_a', 400, { error: { message: 'Invalid value', type: 'invalid_request_error', code: 'invalid_value' } }).errorCode).toBe(
      'provider_rejected_request',
    );
    const failed = { status: 'failed', output: [], error: { code: 'server_error', message: 'The model is too long to answer' } };
    expect(thrown(() => parseVendorAResponse(request('vendor_a'), failed)).errorCode).toBe('provider_server_error');
  });
});

describe('vendor_b (Anthropic)', () => {
  it('HTTP 400 invalid_request_error "prompt is too long", with its sizes', () => {
    overflow(http('vendor_b', 400, ANTHROPIC), 'HTTP 400 (invalid_request_error): prompt is too long: 208310 tokens > 200000 maximum');
    const withMaxTokens = {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'input length and `max_tokens` exceed context limit: 197626 + 8192 > 200000, decrease input length or `max_tokens` and try again',
      },
    };
    overflow(http('vendor_b', 400, withMaxTokens), /197626 \+ 8192 > 200000/);
  });

  it('as an error event in the stream', () => {
    overflow(streamed('vendor_b', [['error', ANTHROPIC]]), /reported an error in its stream \(invalid_request_error\): prompt is too long: 208310 tokens/);
  });

  it('near misses stay what they were', () => {
    const maxTokens = {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'max_tokens: 250000 > 128000, which is the maximum allowed number of output tokens for claude-opus-4-6',
      },
    };
    expect(http('vendor_b', 400, maxTokens).errorCode).toBe('provider_rejected_request');
    expect(http('vendor_b', 400, { type: 'error', error: { type: 'invalid_request_error', message: 'messages.0.content: Field required' } }).errorCode).toBe(
      'provider_rejected_request',
    );
    expect(
      http('vendor_b', 413, { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } }).errorCode,
    ).toBe('provider_rejected_request');
    // The wording under another type is not the overflow answer.
    expect(http('vendor_b', 500, { type: 'error', error: { type: 'api_error', message: ANTHROPIC.error.message } }).errorCode).toBe('provider_server_error');
    expect(http('vendor_b', 400, { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } }).errorCode).toBe(
      'provider_rejected_request',
    );
  });
});

describe('vendor_c (Gemini)', () => {
  it('HTTP 400 INVALID_ARGUMENT with the input token count, and the same as an error chunk', () => {
    overflow(
      http('vendor_c', 400, GEMINI),
      'HTTP 400 (INVALID_ARGUMENT): The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
    );
    overflow(streamed('vendor_c', [[null, GEMINI]]), /input token count \(1200000\)/);
  });

  it('near misses stay what they were', () => {
    expect(http('vendor_c', 400, { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } }).errorCode).toBe(
      'provider_rejected_request',
    );
    expect(http('vendor_c', 429, { error: { ...GEMINI.error, code: 429, status: 'RESOURCE_EXHAUSTED' } }).errorCode).toBe('provider_rate_limited');
    expect(
      http('vendor_c', 400, { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] } })
        .errorCode,
    ).toBe('provider_rejected_credential');
  });
});

describe('gateway (OpenRouter)', () => {
  it("HTTP 400 with OpenRouter's own message, with its sizes", () => {
    overflow(http('gateway', 400, OPENROUTER), /maximum context length is 32768 tokens\. However, you requested about 40000 tokens/);
  });

  it("the upstream's forwarded refusal in metadata.raw: Anthropic's, OpenAI's, Gemini's, as text or as an object", () => {
    overflow(http('gateway', 400, forwarded(ANTHROPIC, 'Anthropic')), 'Provider returned error: prompt is too long: 208310 tokens > 200000 maximum');
    overflow(http('gateway', 400, forwarded(ANTHROPIC, 'Amazon Bedrock', 'object')), /prompt is too long: 208310 tokens/);
    overflow(http('gateway', 400, forwarded(OPENAI_CHAT, 'OpenAI')), /Provider returned error: This model's maximum context length is 128000 tokens/);
    overflow(http('gateway', 400, forwarded(GEMINI, 'Google AI Studio')), /input token count \(1200000\)/);
  });

  it('in the stream and on a 200 body: an error chunk or a failed choice carrying the overflow', () => {
    const chunk = {
      id: 'gen-1',
      object: 'chat.completion.chunk',
      error: OPENROUTER.error,
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
    };
    overflow(streamed('gateway', [[null, chunk]]), /upstream provider refused the input: This endpoint's maximum context length is 32768 tokens/);
    overflow(
      thrown(() => parseGatewayResponse(forwarded(ANTHROPIC, 'Anthropic'), request('gateway'))),
      /prompt is too long: 208310 tokens > 200000/,
    );
    const failedChoice = { choices: [{ index: 0, finish_reason: 'error', error: forwarded(OPENAI_CHAT, 'OpenAI').error, message: { content: null } }] };
    overflow(
      thrown(() => parseGatewayResponse(failedChoice, request('gateway'))),
      /130000 tokens/,
    );
  });

  it('near misses stay what they were', () => {
    const bad = forwarded({ type: 'error', error: { type: 'invalid_request_error', message: 'messages.1.content: Field required' } }, 'Anthropic');
    expect(http('gateway', 400, bad).errorCode).toBe('provider_rejected_request');
    expect(http('gateway', 400, bad).message).toContain('Provider returned error: messages.1.content: Field required');
    expect(http('gateway', 400, { error: { message: 'max_tokens must be at least 1', code: 400 } }).errorCode).toBe('provider_rejected_request');
    expect(http('gateway', 400, { error: { message: 'Provider returned error', code: 400, metadata: { raw: 'upstream said no' } } }).errorCode).toBe(
      'provider_rejected_request',
    );
    // A rate limit or an outage keeps its code whatever its text says.
    expect(http('gateway', 429, OPENROUTER).errorCode).toBe('provider_rate_limited');
    const outage = { error: { code: 502, message: 'Provider returned error', metadata: { raw: '<html>bad gateway</html>' } } };
    expect(thrown(() => parseGatewayResponse(outage, request('gateway'))).errorCode).toBe('provider_server_error');
  });
});
