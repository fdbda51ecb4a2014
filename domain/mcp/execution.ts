/**
 * What a tool call's debug record shows of an MCP execution (never the credential): which
 * server, version, remote tool, binding and policy it used, the credential version sent, how long
 * it took, and why it failed when it did.
 */
export type McpExecutionRecord = {
  kind: 'mcp';
  serverId: string;
  serverKey: string;
  serverVersion: number;
  remoteToolName: string;
  namespace: string;
  credentialPolicyVersionId: string;
  /** The credential version sent; null when nothing was sent (the call stopped before). */
  credentialVersion: number | null;
  durationMs: number;
  /** null on success and for a remote tool error (`remote_error`, the tool answered). */
  failureReason: McpCallFailureReason | null;
};

/** Why an MCP tool call failed: the failure's `reason`, beside code `platform_tool_failed`. */
export type McpCallFailureReason =
  | 'scope_missing'
  | 'credential_revoked'
  | 'binding_missing'
  | 'endpoint_refused'
  | 'timeout'
  | 'connection_failed'
  | 'destination_blocked'
  | 'http_status'
  | 'response_too_large'
  | 'redirect_refused'
  | 'protocol_error'
  | 'remote_error';
