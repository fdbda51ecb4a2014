/**
 * Platform-owned tools: handlers registered in the worker by name. A published tool with owner
 * `platform` and no registered handler fails with `platform_tool_failed` (spec 3).
 */
export type PlatformToolOutcome = { status: 'success'; value: unknown } | { status: 'failure'; message: string };

export type PlatformToolHandler = (input: { arguments: unknown; runId: string; toolCallId: string; signal: AbortSignal }) => Promise<PlatformToolOutcome>;

export type PlatformToolRegistry = ReadonlyMap<string, PlatformToolHandler>;

export function createPlatformToolRegistry(handlers: Record<string, PlatformToolHandler> = {}): PlatformToolRegistry {
  return new Map(Object.entries(handlers));
}
