import { markFailed, serverAttributes, SpanKind, withSpan } from '../tracing.ts';
import { withMcpSession, type McpAccess, type McpFailure } from './connect.ts';

/** A tool as the server lists it, unchecked (`domain/mcp/tool-snapshot.ts` validates it). */
export type ListedMcpTool = { name: unknown; description?: unknown; inputSchema?: unknown };

/**
 * Lists every tool of an MCP server (`tools/list`, following `nextCursor`) in one session. A
 * server listing more than `maxTools` stops the paging early (`tooMany`), so a hostile server
 * cannot make us page forever.
 */
export function listMcpTools(
  access: McpAccess,
  maxTools: number,
): Promise<{ ok: true; value: { tools: ListedMcpTool[] } | { tooMany: true } } | { ok: false; failure: McpFailure }> {
  const attributes = { 'mcp.method.name': 'tools/list', 'agent_runtime.mcp.transport': access.transport, ...serverAttributes(access.endpointUrl) };
  return withSpan('tools/list', { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const answer = await listAll(access, maxTools);
    if (!answer.ok) markFailed(span, answer.failure.kind);
    return answer;
  });
}

function listAll(access: McpAccess, maxTools: number): ReturnType<typeof listMcpTools> {
  return withMcpSession(access, async (client, options) => {
    const tools: ListedMcpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, options);
      tools.push(...page.tools);
      if (tools.length > maxTools) return { tooMany: true as const };
      cursor = page.nextCursor;
    } while (cursor);
    return { tools };
  });
}
