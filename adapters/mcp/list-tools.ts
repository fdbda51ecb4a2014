import { withMcpSession, type McpAccess, type McpFailure } from './connect.ts';

/** A tool as the server lists it, unchecked (`domain/mcp/tool-snapshot.ts` validates it). */
export type ListedMcpTool = { name: unknown; description?: unknown; inputSchema?: unknown };

/**
 * Lists every tool of an MCP server (`tools/list`, following `nextCursor`) in one session. A
 * server listing more than `maxTools` stops the paging early (`tooMany`), so a hostile server
 * cannot make us page forever.
 */
export async function listMcpTools(
  access: McpAccess,
  maxTools: number,
): Promise<{ ok: true; value: { tools: ListedMcpTool[] } | { tooMany: true } } | { ok: false; failure: McpFailure }> {
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
