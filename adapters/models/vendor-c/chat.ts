import { createHash } from 'node:crypto';
import { VendorCSettings } from '../../../domain/model-presets/settings.ts';
import { CONTEXT_OVERFLOW, modelError, streamError, type VendorErrorDetail } from '../errors.ts';
import { eventJson, joinUrl, postStream, streamEndedEarly, type StreamEvent } from '../chat-http.ts';
import { finishText, joinThinking, list, parseStored, record, replayItems, replayOf, StreamText, text, tokens, usage } from '../shared.ts';
import type { FinishReason, ModelAdapter, ModelMessage, ModelRequest, ModelResult, ModelToolCall } from '../types.ts';
import { noteResponseModel } from '../trace.ts';

/** Prefix of tool-call ids we make up because Gemini returned none; never sent back as `id`. */
export const SYNTHESIZED_ID_PREFIX = 'gcall_';
/**
 * Gemini's documented placeholder for a replayed function call whose thought signature was not
 * kept (history from another model); Gemini 3 rejects such a call without any signature.
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/**
 * vendor_c = Gemini API: `POST {base}/models/{model}:streamGenerateContent?alt=sse` with
 * `x-goog-api-key`.
 */
export const vendorCAdapter: ModelAdapter = async (request) => {
  const url = joinUrl(request.baseUrl, `/models/${encodeURIComponent(modelId(request.model))}:streamGenerateContent?alt=sse`);
  const body = buildVendorCRequest(request);
  const stream = new VendorCStream(request);
  const answer = await postStream(request, url, { 'x-goog-api-key': request.apiKey }, body, readVendorCError, (event) => stream.push(event));
  if (answer.kind === 'stream') return stream.finish();
  // Without `alt=sse` Gemini streams a JSON array of the same chunks; a plain object is a
  // non-streamed answer.
  if (!Array.isArray(answer.body)) return stream.whole(answer.body);
  for (const chunk of answer.body) stream.chunk(record(chunk));
  return stream.finish();
};

/**
 * Merges the streamed GenerateContentResponse chunks (each SSE `data:` one) into the one
 * response `parseVendorCResponse` reads: `candidates[0].content.parts` accumulate, a text part
 * joining the previous one when both are text of the same kind (thought or not) and the
 * previous carries no thought signature yet (a signature, which Gemini may send on a last empty
 * part, closes the part it lands on), other parts (function calls) kept whole; the last
 * `finishReason`, `usageMetadata` (a running total), `promptFeedback`, `responseId` and
 * `modelVersion` win. Non-thought text is the visible text. A chunk carrying `error` is the
 * vendor's error (its `code` as the HTTP status). A stream without a `finishReason` (or a
 * blocked prompt) is incomplete.
 */
export class VendorCStream {
  readonly #request: ModelRequest;
  readonly #text: StreamText;
  readonly #merged: Record<string, unknown> = {};
  readonly #parts: Record<string, unknown>[] = [];
  #candidate: Record<string, unknown> | null = null;
  #finished = false;

  constructor(request: ModelRequest) {
    this.#request = request;
    this.#text = new StreamText(request);
  }

  /** One SSE event (Gemini's stream has no final event: it ends). */
  push(event: StreamEvent): boolean {
    this.chunk(eventJson(this.#request, event.data));
    return false;
  }

  /** One GenerateContentResponse chunk. */
  chunk(chunk: Record<string, unknown>): void {
    const error = record(chunk.error);
    if (Object.keys(error).length > 0) {
      const detail = readVendorCError(chunk);
      throw streamError('vendor_c', { ...detail, status: typeof error.code === 'number' ? error.code : null }, this.#request.apiKey);
    }
    for (const key of ['responseId', 'modelVersion', 'usageMetadata', 'promptFeedback'] as const) {
      if (chunk[key] !== undefined && chunk[key] !== null) this.#merged[key] = chunk[key];
    }
    if (record(chunk.promptFeedback).blockReason) this.#finished = true;
    const candidate = list(chunk.candidates)[0];
    if (candidate === undefined) return;
    const { content, ...rest } = record(candidate);
    this.#candidate = { ...this.#candidate, ...rest };
    if (typeof rest.finishReason === 'string' && rest.finishReason !== '') this.#finished = true;
    for (const part of list(record(content).parts).map(record)) this.#part(part);
  }

  #part(part: Record<string, unknown>): void {
    if (typeof part.text === 'string' && part.thought !== true) this.#text.add(part.text);
    const last = this.#parts.at(-1);
    if (last && isTextPart(last) && isTextPart(part) && (last.thought === true) === (part.thought === true) && last.thoughtSignature === undefined) {
      last.text = text(last.text) + text(part.text);
      if (part.thoughtSignature !== undefined) last.thoughtSignature = part.thoughtSignature;
      return;
    }
    this.#parts.push({ ...part });
  }

  finish(): ModelResult {
    if (!this.#finished) throw streamEndedEarly(this.#request, 'a finishReason');
    const candidates = this.#candidate ? [{ ...this.#candidate, content: { role: 'model', parts: this.#parts } }] : [];
    return this.#text.settle(parseVendorCResponse(this.#request, { ...this.#merged, candidates }));
  }

  /** A non-streamed answer: the whole text as one piece. */
  whole(body: unknown): ModelResult {
    return this.#text.settle(parseVendorCResponse(this.#request, body));
  }
}

// A part that is only text (and its thought flag and signature): the kind that streams in pieces.
const isTextPart = (part: Record<string, unknown>) =>
  typeof part.text === 'string' && Object.keys(part).every((key) => key === 'text' || key === 'thought' || key === 'thoughtSignature');

const modelId = (model: string) => model.replace(/^models\//, '');
// Gemini 1.x/2.x take a token budget; Gemini 3 and later take a named level.
const usesBudget = (model: string) => /^gemini-[12][.-]/.test(modelId(model));

/**
 * Settings → parameters. Gemini 3+: `effort` → `thinkingConfig.thinkingLevel` (low, medium,
 * high; `xhigh` → `high`, the API's top level). Gemini 2.x: `thinkingBudget` low 1024,
 * medium 8192, high 24576, xhigh 32768 (24576 outside the Pro line, its maximum). Thought
 * summaries are always requested (`includeThoughts`) for the debug record. `textFormat: text` →
 * `responseMimeType: text/plain`. Tools use `parametersJsonSchema`, which takes our JSON
 * Schema as published instead of Gemini's OpenAPI subset. Prompt caching needs nothing here:
 * Gemini 2.5 and later cache repeated prefixes implicitly, and report the tokens read from the
 * cache as `usageMetadata.cachedContentTokenCount` (a part of `promptTokenCount`; no writes are
 * reported or charged). `promptCacheKey` has no Gemini counterpart.
 */
export function buildVendorCRequest(request: ModelRequest): Record<string, unknown> {
  const settings = parseStored(VendorCSettings, request.settings, 'settings');
  const thinkingConfig = usesBudget(request.model)
    ? { thinkingBudget: budget(settings.effort, /pro/.test(request.model)), includeThoughts: true }
    : { thinkingLevel: settings.effort === 'xhigh' ? 'high' : settings.effort, includeThoughts: true };
  return {
    ...(request.systemPrompt !== '' ? { systemInstruction: { parts: [{ text: request.systemPrompt }] } } : {}),
    contents: contents(request),
    ...(request.tools.length > 0
      ? {
          tools: [
            { functionDeclarations: request.tools.map((tool) => ({ name: tool.name, description: tool.description, parametersJsonSchema: tool.inputSchema })) },
          ],
        }
      : {}),
    generationConfig: { responseMimeType: 'text/plain', thinkingConfig },
  };
}

function budget(effort: VendorCSettings['effort'], pro: boolean): number {
  return { low: 1024, medium: 8192, high: 24_576, xhigh: pro ? 32_768 : 24_576 }[effort];
}

type Content = { role: 'user' | 'model'; parts: unknown[] };

// Consecutive same-role entries merge: all responses to one turn's calls form one user turn.
function contents(request: ModelRequest): Content[] {
  const out: Content[] = [];
  const push = (role: Content['role'], parts: unknown[]) => {
    if (parts.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  };
  for (const message of request.messages) {
    if (message.role === 'user') push('user', message.text === '' ? [] : [{ text: message.text }]);
    else if (message.role === 'tool') push('user', [functionResponse(message)]);
    else push('model', replayItems(request, message.replay) ?? modelParts(request, message));
  }
  return out;
}

function modelParts(request: ModelRequest, message: Extract<ModelMessage, { role: 'assistant' }>): unknown[] {
  const calls = message.toolCalls.map((call, index) => ({
    functionCall: { ...vendorId(call.id), name: call.name, args: argsObject(call) },
    ...(index === 0 && !usesBudget(request.model) ? { thoughtSignature: SKIP_SIGNATURE } : {}),
  }));
  return [...(message.text === '' ? [] : [{ text: message.text }]), ...calls];
}

function functionResponse(message: Extract<ModelMessage, { role: 'tool' }>) {
  // Gemini's convention: `output` for a result, `error` for a failure; `response` is an object.
  const response = message.isError ? { error: message.result ?? null } : { output: message.result ?? null };
  return { functionResponse: { ...vendorId(message.toolCallId), name: message.toolName, response } };
}

const vendorId = (id: string) => (id.startsWith(SYNTHESIZED_ID_PREFIX) ? {} : { id });

function argsObject(call: ModelToolCall): unknown {
  const value = call.arguments;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : { arguments: call.argumentsText };
}

const FINISH: Record<string, FinishReason> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
};

/** Reads `candidates[0]` parts, `finishReason` and `usageMetadata`. */
export function parseVendorCResponse(request: ModelRequest, answer: unknown): ModelResult {
  const body = record(answer);
  noteResponseModel(body.modelVersion);
  const meta = record(body.usageMetadata);
  // promptTokenCount includes the cached part, as the contract counts input.
  const cacheRead = tokens(meta.cachedContentTokenCount);
  const usageOut = usage(tokens(meta.promptTokenCount), tokens(meta.candidatesTokenCount) + tokens(meta.thoughtsTokenCount), cacheRead, 0);
  const candidate = record(list(body.candidates)[0]);
  if (Object.keys(candidate).length === 0) {
    const blocked = text(record(body.promptFeedback).blockReason);
    if (blocked)
      throw modelError('provider_refused_content', `The vendor_c provider blocked the prompt (${blocked.slice(0, 80)})`, {
        providerFinishReason: blocked,
        usage: usageOut,
      });
    throw modelError('provider_invalid_response', 'The vendor_c provider answered without a candidate');
  }
  const finish = text(candidate.finishReason);
  if (finish === 'MALFORMED_FUNCTION_CALL') {
    // The model emitted a call Gemini could not parse; a new attempt usually succeeds.
    throw modelError('provider_invalid_response', 'The vendor_c model produced a malformed function call', { providerFinishReason: finish, usage: usageOut });
  }
  const parts = list(record(candidate.content).parts);
  const texts: string[] = [];
  const thinking: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  // The transcript length keeps two identical answers in different turns apart.
  const seed = `${request.messages.length}\u0000${text(body.responseId) || JSON.stringify(parts)}`;
  for (const part of parts.map(record)) {
    if (typeof part.text === 'string') (part.thought === true ? thinking : texts).push(part.text);
    const call = record(part.functionCall);
    if (typeof call.name === 'string') {
      const args = call.args ?? {};
      const id = text(call.id) || synthesizedId(seed, toolCalls.length);
      toolCalls.push({ id, name: call.name, arguments: args, argumentsText: JSON.stringify(args) });
    }
  }
  return {
    text: texts.join(''),
    toolCalls,
    finishReason:
      toolCalls.length > 0 && (finish === 'STOP' || finish === '') ? 'tool_calls' : ((Object.hasOwn(FINISH, finish) ? FINISH[finish] : undefined) ?? 'other'),
    providerFinishReason: finishText(finish),
    usage: usageOut,
    thinking: joinThinking(thinking),
    // The parts verbatim: thought signatures must return on the part that carried them.
    replay: replayOf(request, parts.some((part) => typeof record(part).thoughtSignature === 'string') ? parts : []),
  };
}

// Stable for one response (a retried parse yields the same ids), distinct across responses.
function synthesizedId(seed: string, index: number): string {
  return `${SYNTHESIZED_ID_PREFIX}${createHash('sha256').update(`${seed}\u0000${index}`).digest('hex').slice(0, 24)}`;
}

/**
 * Gemini error body (and error chunk): `{error: {code, message, status, details: [{reason}]}}`;
 * an `INVALID_ARGUMENT` "The input token count (…) exceeds the maximum…" is the overflow.
 */
export function readVendorCError(body: unknown): VendorErrorDetail {
  const error = record(record(body).error);
  const reason = list(error.details)
    .map((detail) => text(record(detail).reason))
    .find((value) => value !== '');
  return { message: text(error.message) || undefined, code: reason || text(error.status) || undefined, contextOverflow: CONTEXT_OVERFLOW.gemini(error) };
}
