/** Wire names of the MCP resources (spec 1 "Sandbox, storage, MCP"). */

export const MCP_TRANSPORTS = ['streamable_http', 'legacy_sse'] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

export const MCP_CREDENTIAL_KINDS = ['static_bearer', 'api_key_header'] as const;
export type McpCredentialKind = (typeof MCP_CREDENTIAL_KINDS)[number];

/** A toolset entry's approval: the same two values as a tool definition's `approval`. */
export const MCP_TOOL_APPROVALS = ['never', 'always'] as const;
export type McpToolApproval = (typeof MCP_TOOL_APPROVALS)[number];

/** One tool of a server version's snapshot, as the server described it. */
export type McpToolSnapshotEntry = {
  name: string;
  description: string | null;
  /** The tool's `inputSchema`, exactly as the server sent it. */
  inputSchema: Record<string, unknown>;
};

/** Where MCP endpoints may point: the webhooks' setting (https and public hosts unless development allows more). */
export type McpEndpointPolicy = { allowPrivateNetwork: boolean };
