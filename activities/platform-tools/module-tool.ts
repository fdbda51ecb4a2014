/**
 * One platform tool of an operator's module: a name (the tool name agents publish with owner
 * `platform`), a JSON Schema of its input, and an async function that receives the validated
 * input and `{signal, runId, toolCallId}` and returns the result value (a JSON value); throwing
 * fails the call with the error's message, which the model sees.
 */
export type PlatformToolModuleTool = {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  handler: (input: Record<string, unknown>, context: { signal: AbortSignal; runId: string; toolCallId: string }) => Promise<unknown>;
};
