import { markFailed, withSpan } from '../../adapters/tracing.ts';
import type { ToolExecutionRecord } from '../../domain/tool-calls/execution.ts';
import type { ProductEventDraft } from '../../services/kernel/events/index.ts';
import type { PlatformToolOutcome } from '../../services/runtime/tool-calls/index.ts';

/**
 * Platform-owned tools: what runs a tool call with owner `platform` in the worker. A published
 * tool with no runner fails with `platform_tool_failed` (spec 3).
 *
 * Two kinds share one registry: **handlers** registered by name (an operator's modules, see
 * `modules.ts`, or code passed to `createRuntime`), which answer a value or a failure message;
 * and the platform's **built-ins** (the sandbox tools, `load_skill`, MCP tools by prefix), which
 * answer the outcome the tool-call verb records with their debug record and product events.
 */

/** What a handler answers. */
export type PlatformToolAnswer = { status: 'success'; value: unknown } | { status: 'failure'; message: string };

export type PlatformToolInput = { arguments: unknown; runId: string; toolCallId: string; signal: AbortSignal };

export type PlatformToolHandler = (input: PlatformToolInput) => Promise<PlatformToolAnswer>;

/** What the worker records for a call: the outcome, and a built-in's debug record and events (written with it). */
export type PlatformToolResult = { outcome: PlatformToolOutcome; execution?: ToolExecutionRecord; events?: ProductEventDraft[] };

export type PlatformToolRunner = (input: PlatformToolInput & { toolName: string }) => Promise<PlatformToolResult>;

export type BuiltInPlatformTool = { matches: (toolName: string) => boolean; run: PlatformToolRunner };

export type PlatformToolRegistry = {
  /** The runner of a tool name: a built-in first, then a handler; undefined when none. */
  resolve(toolName: string): PlatformToolRunner | undefined;
  /** Names of the registered handlers (for the start-up log). */
  handlerNames(): string[];
};

/** A handler's answer as the outcome the verb records: a failure is `platform_tool_failed` with the handler's message. */
export const fromAnswer = (answer: PlatformToolAnswer): PlatformToolResult =>
  answer.status === 'success' ? { outcome: answer } : { outcome: { status: 'failure', code: 'platform_tool_failed', message: answer.message.slice(0, 2000) } };

export function createPlatformToolRegistry(
  input: { handlers?: Record<string, PlatformToolHandler>; builtIns?: BuiltInPlatformTool[] } = {},
): PlatformToolRegistry {
  const handlers = new Map(Object.entries(input.handlers ?? {}));
  const builtIns = input.builtIns ?? [];
  return {
    resolve(toolName) {
      const builtIn = builtIns.find((entry) => entry.matches(toolName));
      const handler = handlers.get(toolName);
      const run: PlatformToolRunner | undefined = builtIn ? builtIn.run : handler ? async (call) => fromAnswer(await handler(call)) : undefined;
      return run && traced(run);
    },
    handlerNames: () => [...handlers.keys()].sort(),
  };
}

/**
 * A tool's execution in a span `execute_tool <name>` (GenAI conventions: `gen_ai.operation.name`,
 * `gen_ai.tool.name`, `gen_ai.tool.call.id`; a failure's code as `error.type`), never its
 * arguments, result or failure message.
 */
function traced(run: PlatformToolRunner): PlatformToolRunner {
  return (call) => {
    const attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.toolName,
      'gen_ai.tool.call.id': call.toolCallId,
      'agent_runtime.run_id': call.runId,
    };
    return withSpan(`execute_tool ${call.toolName}`, { attributes }, async (span) => {
      const result = await run(call);
      if (result.outcome.status === 'failure') markFailed(span, result.outcome.code);
      return result;
    });
  };
}
