import { TOOL_FAILURE_CODES, type ToolFailureCode } from './states.ts';

/**
 * The `failure` of a tool call: a stable code, a safe message (never a raw argument or result
 * value) and, for validation failures, the first failing path (`arguments.city`,
 * `safeResult.value.items[0]`). A failed MCP call adds its `reason` (`timeout`,
 * `credential_revoked`, ...; domain/mcp/execution.ts).
 */
export type ToolCallFailure = { code: ToolCallFailureCode; message: string; path?: string; reason?: string };

/** A call left open when its run ended (spec 3 lists cancellation among the non-retryable). */
export const TOOL_CANCELLED = 'tool_cancelled';
export type ToolCallFailureCode = ToolFailureCode | typeof TOOL_CANCELLED;
export const TOOL_CALL_FAILURE_CODES: readonly ToolCallFailureCode[] = [...TOOL_FAILURE_CODES, TOOL_CANCELLED];

/** Spec 3 "Run and tool failure codes": the model may try these again (within the attempt limit). */
export const RETRYABLE_TOOL_FAILURES: readonly ToolCallFailureCode[] = [
  'tool_expired',
  'tool_failed',
  'platform_tool_failed',
  'invalid_tool_arguments',
  'invalid_tool_result',
];

export const isRetryableToolFailure = (code: string): boolean => (RETRYABLE_TOOL_FAILURES as readonly string[]).includes(code);

/** Failure messages (ours or a caller's `{message}`) are bounded like an approval note. */
export const TOOL_FAILURE_MESSAGE_MAX = 2000;

export function toolFailure(code: ToolCallFailureCode, message: string, path?: string): ToolCallFailure {
  const cut = message.length > TOOL_FAILURE_MESSAGE_MAX ? `${message.slice(0, TOOL_FAILURE_MESSAGE_MAX - 1)}…` : message;
  // Messages carry third parties' text (an MCP server's error): stored as jsonb, which takes no
  // NUL and no lone surrogate (the cut may halve a surrogate pair).
  const bounded = cut.toWellFormed().replaceAll('\u0000', '\ufffd');
  return path === undefined ? { code, message: bounded } : { code, message: bounded, path };
}
