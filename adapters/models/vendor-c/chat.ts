import { createHash } from 'node:crypto';
import { VendorCSettings } from '../../../domain/model-presets/settings.ts';
import { modelError, type VendorErrorDetail } from '../errors.ts';
import { joinUrl, postJson } from '../chat-http.ts';
import { finishText, joinThinking, list, parseStored, record, replayItems, replayOf, text, tokens, usage } from '../shared.ts';
import type { FinishReason, ModelAdapter, ModelMessage, ModelRequest, ModelResult, ModelToolCall } from '../types.ts';

/** Prefix of tool-call ids we make up because Gemini returned none; never sent back as `id`. */
export const SYNTHESIZED_ID_PREFIX = 'gcall_';
/**
 * Gemini's documented placeholder for a replayed function call whose thought signature was not
 * kept (history from another model); Gemini 3 rejects such a call without any signature.
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** vendor_c = Gemini API: `POST {base}/models/{model}:generateContent` with `x-goog-api-key`. */
export const vendorCAdapter: ModelAdapter = async (request) => {
  const url = joinUrl(request.baseUrl, `/models/${encodeURIComponent(modelId(request.model))}:generateContent`);
  const answer = await postJson(request, url, { 'x-goog-api-key': request.apiKey }, buildVendorCRequest(request), readVendorCError);
  return parseVendorCResponse(request, answer);
};

const modelId = (model: string) => model.replace(/^models\//, '');
// Gemini 1.x/2.x take a token budget; Gemini 3 and later take a named level.
const usesBudget = (model: string) => /^gemini-[12][.-]/.test(modelId(model));

/**
 * Settings → parameters. Gemini 3+: `effort` → `thinkingConfig.thinkingLevel` (low, medium,
 * high; `xhigh` → `high`, the API's top level). Gemini 2.x: `thinkingBudget` low 1024,
 * medium 8192, high 24576, xhigh 32768 (24576 outside the Pro line, its maximum). Thought
 * summaries are always requested (`includeThoughts`) for the debug record. `textFormat: text` →
 * `responseMimeType: text/plain`. Tools use `parametersJsonSchema`, which takes our JSON
 * Schema as published instead of Gemini's OpenAPI subset.
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
      ? { tools: [{ functionDeclarations: request.tools.map((tool) => ({ name: tool.name, description: tool.description, parametersJsonSchema: tool.inputSchema })) }] }
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
  const meta = record(body.usageMetadata);
  const cacheRead = tokens(meta.cachedContentTokenCount);
  const usageOut = usage(tokens(meta.promptTokenCount), tokens(meta.candidatesTokenCount) + tokens(meta.thoughtsTokenCount), cacheRead, 0);
  const candidate = record(list(body.candidates)[0]);
  if (Object.keys(candidate).length === 0) {
    const blocked = text(record(body.promptFeedback).blockReason);
    if (blocked) throw modelError('provider_refused_content', `The vendor_c provider blocked the prompt (${blocked.slice(0, 80)})`, { providerFinishReason: blocked, usage: usageOut });
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
    finishReason: toolCalls.length > 0 && (finish === 'STOP' || finish === '') ? 'tool_calls' : (FINISH[finish] ?? 'other'),
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

/** Gemini error body: `{error: {code, message, status, details: [{reason}]}}`. */
export function readVendorCError(body: unknown): VendorErrorDetail {
  const error = record(record(body).error);
  const reason = list(error.details)
    .map((detail) => text(record(detail).reason))
    .find((value) => value !== '');
  return { message: text(error.message) || undefined, code: reason || text(error.status) || undefined };
}
