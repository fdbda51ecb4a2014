import * as v from 'valibot';
import { TOOL_FAILURE_MESSAGE_MAX } from './failures.ts';

/**
 * The tool result envelope a caller submits (spec 2 "Tool calls and approvals", version 1). A
 * success carries any JSON `value`, checked against the tool's `outputSchema` by the service; a
 * failure carries an optional `{message}` (our choice: the spec leaves its shape open).
 */
export const TOOL_RESULT_VERSION = 1;

export const ToolFailureValue = v.strictObject(
  { message: v.optional(v.pipe(v.string(), v.maxLength(TOOL_FAILURE_MESSAGE_MAX, `message must be at most ${TOOL_FAILURE_MESSAGE_MAX} characters`))) },
  'a failure value must be an object with an optional message',
);

export const SafeResultInput = v.variant(
  'status',
  [
    v.strictObject({ version: v.literal(TOOL_RESULT_VERSION, 'version must be 1'), status: v.literal('success'), value: v.unknown() }),
    v.strictObject({
      version: v.literal(TOOL_RESULT_VERSION, 'version must be 1'),
      status: v.literal('failure'),
      value: v.optional(v.nullable(ToolFailureValue)),
    }),
  ],
  'status must be "success" or "failure"',
);
export type SafeResultInput = v.InferOutput<typeof SafeResultInput>;

/**
 * Fences travel as positive-integer strings (spec 1 "Caller tool call") of at most 15 digits:
 * every fence is below `FENCE_LIMIT`, exact in a JavaScript number and a Postgres bigint.
 */
export const FENCE_LIMIT = 10 ** 15;
export const Fence = v.pipe(v.string('fence must be a positive-integer string'), v.regex(/^[1-9][0-9]{0,14}$/, 'fence must be a positive-integer string'));

/** What is stored in `tool_calls.safe_result`: only validated values, or a safe failure. */
export type StoredSafeResult = { version: 1; status: 'success'; value: unknown } | { version: 1; status: 'failure'; value: { message?: string } | null };
