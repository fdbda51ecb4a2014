import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { markFailed, serverAttributes, SpanKind, withSpan } from '../tracing.ts';
import { withMcpSession, type McpAccess, type McpFailure } from './connect.ts';

export type { CallToolResult };

/**
 * Calls one tool of an MCP server (`tools/call`) in one session; the result is the server's,
 * unjudged. In a CLIENT span `tools/call <tool>` (`mcp.method.name`, `gen_ai.tool.name`, the
 * transport and the server's host; a failure's kind, or `tool_error` for a result flagged
 * `isError`), never the arguments, the result or the credential.
 */
export function callRemoteMcpTool(
  access: McpAccess,
  call: { name: string; arguments: Record<string, unknown> },
): Promise<{ ok: true; value: CallToolResult } | { ok: false; failure: McpFailure }> {
  const attributes = {
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': call.name,
    'agent_runtime.mcp.transport': access.transport,
    ...serverAttributes(access.endpointUrl),
  };
  return withSpan(`tools/call ${call.name}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const answer = await withMcpSession(
      access,
      (client, options) => client.callTool({ name: call.name, arguments: call.arguments }, undefined, options) as Promise<CallToolResult>,
    );
    if (!answer.ok) markFailed(span, answer.failure.kind);
    else if (answer.value.isError === true) markFailed(span, 'tool_error');
    return answer;
  });
}
