import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

/** The settings variable that points vendor_a (OpenAI Responses API) at a base URL. */
export const VENDOR_A_BASE_URL_ENV = 'SVC_MODEL_BASE_URL_VENDOR_A';
/** Any key of OpenAI's shape; the server accepts every bearer key. */
export const INSTANT_MODEL_API_KEY = 'sk-proj-bench-instant-model-key';

const USAGE = {
  input_tokens: 12,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 2,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 14,
};
const CHAT_USAGE = { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 };
const REPLY = 'Done.';

export type InstantModelServerOptions = {
  /** The text reply (default `Done.`). */
  replyText?: string;
  /** Streamed answers: characters per text delta (default: the whole text in one delta). */
  chunkSize?: number;
  /** Streamed answers: wait this long before each text delta after the first (default 0: instant). */
  chunkDelayMs?: number;
  /**
   * Called just before each text delta is written to a streamed answer (latency measurements), with
   * the request's last user message and where the delta sits in the reply (`offset`: characters
   * before it).
   */
  onTextChunk?: (text: string, at: { userText: string | null; index: number; offset: number }) => void;
  /**
   * Called when a chat request has arrived (`received`, before any `sleep` hold) and once its
   * answer has been handed to the socket in full (`answered`), with the request's last user
   * message and `performance.now()` (hand-off measurements).
   */
  onExchange?: (phase: 'received' | 'answered', userText: string | null, at: number) => void;
  /**
   * Responses API: report the request's input tokens as a quarter of its input's JSON length
   * (instructions, input items, tools) instead of a constant 12, as a vendor counts what it read
   * (the long-conversation benchmark). Each request's count is kept (`inputTokens()`).
   */
  countInputTokens?: boolean;
};

export type InstantModelServer = {
  baseUrl: string;
  /** Requests whose last user message contains `text`, so far (the peer benchmark's crash check). */
  requestsMentioning(text: string): number;
  /** With `countInputTokens`: each Responses request's input tokens as reported, in arrival order. */
  inputTokens(): number[];
  close(): Promise<void>;
};

/** What the model decides from the conversation, whichever wire protocol carried it. */
type Decision = { kind: 'call'; calls: Array<{ tool: string; arguments: string }> } | { kind: 'reply' };

/**
 * The benchmarks' model: an OpenAI-compatible endpoint on 127.0.0.1 that answers at once, so a
 * measured turn is the runtime's own time. It speaks the Responses API (`POST /v1/responses`,
 * streamed as vendor_a asks, or not) and Chat Completions (`POST /v1/chat/completions`, streamed
 * or not, what the peers' OpenAI clients use), and `GET /v1/models`. Options can split a
 * streamed text reply into deltas with a delay between them (`chunkSize`, `chunkDelayMs`; none
 * by default). A last user message `call <tool> [<JSON
 * arguments>]` is answered with a call of that tool, and a request carrying the tool's output
 * with a short text reply; anything else gets the text reply. A last user message of several
 * lines, each `call <tool> [<JSON arguments>]`, is answered with all those calls in one reply, in
 * line order (parallel tool calls). A user message containing
 * `sleep <ms>` is answered after that long (a call in flight for the crash check). The test
 * suite's scriptable fakes (`test/fixtures/model-vendors/`) stay with the tests.
 */
export async function startInstantModelServer(options: InstantModelServerOptions = {}): Promise<InstantModelServer> {
  let seq = 0;
  const seen: string[] = [];
  const counted: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://instant').pathname;
      if (req.method === 'GET' && path === '/v1/models') {
        return send(res, 200, { object: 'list', data: [{ id: 'gpt-5.1', object: 'model', created: 1762800000, owned_by: 'system' }] });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      seq += 1;
      if (req.method === 'POST' && path === '/v1/responses') return void answerResponses(body, seq, seen, res, options, counted);
      if (req.method === 'POST' && path === '/v1/chat/completions') return void answerChat(body, seq, seen, res, options);
      send(res, 404, { error: { message: `No route for ${req.method} ${path}`, type: 'invalid_request_error', param: null, code: null } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requestsMentioning: (text) => seen.filter((message) => message.includes(text)).length,
    inputTokens: () => [...counted],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The decision for a conversation whose last user message is `userText`. */
function decide(userText: string | null, answered: boolean): Decision {
  if (userText === null || answered) return { kind: 'reply' };
  // Several lines, each a `call` directive: parallel tool calls, one per line.
  const lines = userText.split('\n').map((line) => /^call (\S+)(?: (\{.*\}))?$/.exec(line));
  if (lines.length > 1 && lines.every((line) => line !== null)) {
    return { kind: 'call', calls: lines.map((line) => ({ tool: line[1]!, arguments: line[2] ?? '{}' })) };
  }
  const asked = /^call (\S+)(?: (\{.*\}))?$/s.exec(userText);
  return asked ? { kind: 'call', calls: [{ tool: asked[1]!, arguments: asked[2] ?? '{}' }] } : { kind: 'reply' };
}

/** The id suffix of a reply's `index`th tool call: none for the first, so one call keeps its ids. */
const nth = (index: number) => (index === 0 ? '' : `_${index}`);

/** `onExchange`: the request's arrival now, its answer's end when the response finishes. */
function reportExchange(res: ServerResponse, userText: string | null, options: InstantModelServerOptions): void {
  const report = options.onExchange;
  if (!report) return;
  report('received', userText, performance.now());
  res.once('finish', () => report('answered', userText, performance.now()));
}

async function holdIfAsked(userText: string | null): Promise<void> {
  const sleep = userText === null ? null : /\bsleep (\d+)\b/.exec(userText);
  if (sleep) await delay(Number(sleep[1]));
}

async function answerResponses(
  body: Record<string, unknown>,
  seq: number,
  seen: string[],
  res: ServerResponse,
  options: InstantModelServerOptions,
  counted: number[],
): Promise<void> {
  const input = (body.input ?? []) as Array<{ type?: string; role?: string; content?: unknown }>;
  let usage = USAGE;
  if (options.countInputTokens) {
    const tokens = Math.ceil(JSON.stringify({ instructions: body.instructions, input: body.input, tools: body.tools }).length / 4);
    counted.push(tokens);
    usage = { ...USAGE, input_tokens: tokens, total_tokens: tokens + USAGE.output_tokens };
  }
  const lastUser = input.findLastIndex((item) => item.role === 'user');
  const userText = typeof input[lastUser]?.content === 'string' ? (input[lastUser].content as string) : null;
  seen.push(userText ?? '');
  reportExchange(res, userText, options);
  await holdIfAsked(userText);
  if (res.destroyed) return;
  const decision = decide(
    userText,
    input.slice(lastUser + 1).some((item) => item.type === 'function_call_output'),
  );
  const reply = options.replyText ?? REPLY;
  const calls =
    decision.kind === 'call'
      ? decision.calls.map((call, index) => ({
          type: 'function_call',
          id: `fc_${seq}${nth(index)}`,
          call_id: `call_${seq}${nth(index)}`,
          name: call.tool,
          arguments: call.arguments,
          status: 'completed',
        }))
      : [];
  const item = calls[0] ?? {
    type: 'message',
    id: `msg_${seq}`,
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text: reply, annotations: [] }],
  };
  const response = {
    id: `resp_${seq}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model: body.model ?? 'gpt-5.1',
    output: decision.kind === 'call' ? calls : [item],
    incomplete_details: null,
    usage,
  };
  if (body.stream !== true) return send(res, 200, response);
  // The Responses stream (what vendor_a asks for): the item's events, then the completed response.
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
  const at = { item_id: item.id, output_index: 0 };
  const pending = { ...response, status: 'in_progress', output: [], usage: null };
  const head = [event('response.created', { response: pending }), event('response.in_progress', { response: pending })];
  const deltas: string[] = [];
  const tail: string[] = [];
  if (decision.kind === 'call') {
    for (const [index, call] of calls.entries()) {
      const of = { item_id: call.id, output_index: index };
      head.push(event('response.output_item.added', { output_index: index, item: { ...call, arguments: '', status: 'in_progress' } }));
      head.push(event('response.function_call_arguments.delta', { ...of, delta: call.arguments }));
      head.push(event('response.function_call_arguments.done', { ...of, arguments: call.arguments }));
      head.push(event('response.output_item.done', { output_index: index, item: call }));
    }
  } else {
    const part = { type: 'output_text', text: reply, annotations: [] };
    head.push(event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }));
    head.push(event('response.content_part.added', { ...at, content_index: 0, part: { ...part, text: '' } }));
    deltas.push(...pieces(reply, options.chunkSize));
    tail.push(
      event('response.output_text.done', { ...at, content_index: 0, text: reply, logprobs: [] }),
      event('response.content_part.done', { ...at, content_index: 0, part }),
      event('response.output_item.done', { output_index: 0, item }),
    );
  }
  tail.push(event('response.completed', { response }));
  const offsets = deltas.map((_, index) => deltas.slice(0, index).reduce((sum, text) => sum + text.length, 0));
  const delta = (text: string, index: number) => {
    options.onTextChunk?.(text, { userText, index, offset: offsets[index]! });
    return event('response.output_text.delta', { ...at, content_index: 0, delta: text, logprobs: [] });
  };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (!options.chunkDelayMs) return void res.end([...head, ...deltas.map(delta), ...tail].join(''));
  res.write(head.join(''));
  for (const [index, text] of deltas.entries()) {
    if (index > 0) await delay(options.chunkDelayMs);
    if (res.destroyed) return;
    res.write(delta(text, index));
  }
  res.end(tail.join(''));
}

/** `text` in deltas of `size` characters (code points), or whole. */
function pieces(text: string, size: number | undefined): string[] {
  if (!size || size <= 0) return text === '' ? [] : [text];
  const chars = Array.from(text);
  const out: string[] = [];
  for (let index = 0; index < chars.length; index += size) out.push(chars.slice(index, index + size).join(''));
  return out;
}

async function answerChat(body: Record<string, unknown>, seq: number, seen: string[], res: ServerResponse, options: InstantModelServerOptions): Promise<void> {
  const messages = (body.messages ?? []) as Array<{ role?: string; content?: unknown }>;
  const lastUser = messages.findLastIndex((message) => message.role === 'user');
  const content = messages[lastUser]?.content;
  const userText = typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : null;
  seen.push(userText ?? '');
  reportExchange(res, userText, options);
  await holdIfAsked(userText);
  if (res.destroyed) return; // the caller hung up (killed) while the call was held
  const decision = decide(
    userText,
    messages.slice(lastUser + 1).some((message) => message.role === 'tool'),
  );
  const id = `chatcmpl-${seq}`;
  const created = Math.floor(Date.now() / 1000);
  const model = (body.model as string | undefined) ?? 'gpt-5.1';
  const toolCalls =
    decision.kind === 'call'
      ? decision.calls.map((call, index) => ({
          index,
          id: `call_${seq}${nth(index)}`,
          type: 'function',
          function: { name: call.tool, arguments: call.arguments },
        }))
      : null;
  const finish = toolCalls ? 'tool_calls' : 'stop';
  const reply = options.replyText ?? REPLY;
  if (body.stream !== true) {
    const message = toolCalls
      ? { role: 'assistant', content: null, tool_calls: toolCalls.map((call) => ({ id: call.id, type: 'function', function: call.function })) }
      : { role: 'assistant', content: reply };
    return send(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      usage: CHAT_USAGE,
    });
  }
  const chunk = (delta: Record<string, unknown>, finishReason: string | null, usage?: unknown) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }], ...(usage ? { usage } : {}) })}\n\n`;
  const frames = [
    chunk(toolCalls ? { role: 'assistant', content: null, tool_calls: toolCalls } : { role: 'assistant', content: reply }, null),
    chunk({}, finish),
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: CHAT_USAGE })}\n\n`,
    'data: [DONE]\n\n',
  ];
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(frames.join(''));
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
