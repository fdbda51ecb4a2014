import { callRemoteMcpTool, type CallToolResult } from '../../../adapters/mcp/call-tool.ts';
import { describeMcpFailure } from '../../../adapters/mcp/connect.ts';
import type { DestinationLookup } from '../../../adapters/outbound/pinned-destination.ts';
import { mcpToolName } from '../../../domain/agent-config/index.ts';
import type { McpCallFailureReason, McpExecutionRecord } from '../../../domain/mcp/execution.ts';
import { policyContains } from '../../../domain/mcp/policy-scope.ts';
import { TOOL_FAILURE_MESSAGE_MAX } from '../../../domain/tool-calls/failures.ts';
import { endpointUrlProblem } from '../../../domain/outbound/endpoint-url.ts';
import type { AgentConfig } from '../../../domain/agent-config/index.ts';
import { principalHoldsScope } from '../../access/auth/index.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { findPolicyVersion } from '../../configuration/mcp-credential-policies/index.ts';
import { credentialHeaderOf } from '../../configuration/mcp-credentials/index.ts';
import { loadMcpBindings } from '../../configuration/mcp-toolsets/index.ts';
import { loadRunVersion } from '../runs/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { PlatformToolOutcome } from '../tool-calls/index.ts';

export type McpCallDeps = { keyring: CredentialKeyring; allowPrivateNetwork: boolean; lookup?: DestinationLookup };

export type McpCallResult = { outcome: PlatformToolOutcome; execution: McpExecutionRecord | null };

/**
 * Runs one MCP tool call of a run against its remote server (for the runtime; no actor). In
 * order: the binding whose mounted name this is; a live check that the run's creator still holds
 * `mcp:execute`, before anything is decrypted; the pinned policy version, which must still be
 * active and contain the server endpoint; the endpoint against this installation's address
 * rules. Only then is the credential decrypted and the call made, through `callRemoteMcpTool` (the
 * policy's exact origin and path prefix, timeout and response limit; pinned, checked addresses).
 *
 * Every failure is an outcome the model sees (`platform_tool_failed` with a `reason`), never a
 * throw, so a run never sticks on a broken server. A remote tool error (`isError`) is
 * `tool_failed` with the tool's own text.
 */
export async function callMcpTool({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: McpCallDeps;
  input: { runId: string; toolName: string; arguments: unknown; signal?: AbortSignal };
}): Promise<McpCallResult> {
  const started = Date.now();
  const { run, agentVersion } = await loadRunVersion(ctx.db, input.runId);
  const bindings = await loadMcpBindings(ctx.db, agentVersion.config as unknown as AgentConfig);
  const match = bindings
    .flatMap((binding) => binding.tools.map((tool) => ({ binding, tool })))
    .find(({ binding, tool }) => mcpToolName(binding.namespace, tool.remoteToolName) === input.toolName);
  if (!match) return { outcome: failure('binding_missing', `No MCP binding of this agent version mounts "${input.toolName}".`), execution: null };
  const { binding, tool } = match;
  const record = (reason: McpCallFailureReason | null, credentialVersion: number | null): McpExecutionRecord => ({
    kind: 'mcp',
    serverId: binding.server.id,
    serverKey: binding.server.key,
    serverVersion: binding.serverVersion.version,
    remoteToolName: tool.remoteToolName,
    namespace: binding.namespace,
    credentialPolicyVersionId: binding.credentialPolicyVersionId,
    credentialVersion,
    durationMs: Date.now() - started,
    failureReason: reason,
  });
  const stop = (reason: McpCallFailureReason, message: string) => ({ outcome: failure(reason, message), execution: record(reason, null) });

  if (!run.createdByPrincipalId || !(await principalHoldsScope(ctx.db, run.createdByPrincipalId, 'mcp:execute'))) {
    return stop('scope_missing', "The run's creator no longer holds the mcp:execute scope, so MCP tools cannot run for it.");
  }
  const policy = await findPolicyVersion(ctx, binding.credentialPolicyVersionId, run.organizationId);
  if (!policy) return stop('binding_missing', 'The credential policy version of this MCP binding no longer exists.');
  if (policy.credential.revokedAt)
    return stop('credential_revoked', `The credential of policy "${policy.policy.key}" is revoked; the MCP server cannot be called.`);
  const endpointProblem = endpointUrlProblem(binding.server.endpointUrl, { allowPrivateNetwork: deps.allowPrivateNetwork });
  if (endpointProblem || !policyContains(policy.version, binding.server.endpointUrl)) {
    return stop('endpoint_refused', `The endpoint of MCP server "${binding.server.key}" is not allowed on this installation.`);
  }

  const rules = policy.version;
  const called = await callRemoteMcpTool(
    {
      endpointUrl: binding.server.endpointUrl,
      transport: binding.server.transport,
      timeoutMs: rules.timeoutMs,
      maximumResponseBytes: rules.maximumResponseBytes,
      contains: (url) => policyContains(rules, url.toString()),
      credentialHeader: credentialHeaderOf(deps.keyring, policy.credential),
      allowPrivateNetwork: deps.allowPrivateNetwork,
      ...(deps.lookup ? { lookup: deps.lookup } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    },
    { name: tool.remoteToolName, arguments: input.arguments as Record<string, unknown> },
  );
  const credentialVersion = policy.credential.credentialVersion;
  if (!called.ok) {
    const reason = called.failure.kind;
    return { outcome: failure(reason, `${capitalize(describeMcpFailure(called.failure))}.`), execution: record(reason, credentialVersion) };
  }
  const result = called.value;
  if (result.isError) {
    return {
      outcome: {
        status: 'failure',
        code: 'tool_failed',
        message: bounded(`The MCP tool reported an error: ${textOf(result) || 'no details'}`),
        reason: 'remote_error',
      },
      execution: record('remote_error', credentialVersion),
    };
  }
  const value: Record<string, unknown> = { content: result.content ?? [] };
  if (result.structuredContent !== undefined) value.structuredContent = result.structuredContent;
  return { outcome: { status: 'success', value }, execution: record(null, credentialVersion) };
}

function failure(reason: McpCallFailureReason, message: string): PlatformToolOutcome {
  return { status: 'failure', code: 'platform_tool_failed', message: bounded(message), reason };
}

const bounded = (text: string) => (text.length > TOOL_FAILURE_MESSAGE_MAX ? `${text.slice(0, TOOL_FAILURE_MESSAGE_MAX - 1)}…` : text);

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The text blocks of a result, joined: what a remote error says. */
function textOf(result: CallToolResult): string {
  return (result.content ?? [])
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text' && typeof (block as { text?: unknown }).text === 'string')
    .map((block) => block.text)
    .join('\n')
    .trim();
}
