import { and, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { describeMcpFailure, type McpAccess } from '../../../adapters/mcp/connect.ts';
import { listMcpTools } from '../../../adapters/mcp/list-tools.ts';
import type { DestinationLookup } from '../../../adapters/outbound/pinned-destination.ts';
import { mcpServers, mcpServerVersions } from '../../../db/schema/index.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { DiscoverMcpServerInput } from '../../../domain/mcp/inputs.ts';
import { DISCOVERY_MAX_RESPONSE_BYTES, DISCOVERY_TIMEOUT_MS, MAX_DISCOVERED_TOOLS } from '../../../domain/mcp/limits.ts';
import { policyContains } from '../../../domain/mcp/policy-scope.ts';
import { toToolSnapshot } from '../../../domain/mcp/tool-snapshot.ts';
import type { McpToolSnapshotEntry } from '../../../domain/mcp/types.ts';
import { endpointUrlProblem } from '../../../domain/outbound/endpoint-url.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { findPolicyVersion } from '../mcp-credential-policies/index.ts';
import { credentialHeaderOf } from '../mcp-credentials/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import type { McpEndpointPolicy } from './create.ts';
import { findMcpServer, versionsOfServers } from './load.ts';
import { toMcpServerResponse, toMcpServerVersionResponse, type PublicMcpServer, type PublicMcpServerVersion } from './public.ts';
import { toolSnapshotHash } from './tool-snapshot-hash.ts';

export type McpDiscoveryDeps = { keyring: CredentialKeyring; policy: McpEndpointPolicy; lookup?: DestinationLookup };

/**
 * Connects to the server with the official MCP client, lists its tools (every page, at most
 * 256) and publishes the next server version only when the tool metadata changed; unchanged
 * metadata answers the current version (`changed: false`). Toolsets keep the version they name.
 *
 * With `credentialPolicyVersionId` the discovery is authenticated: the policy version must be
 * active and its exact origin and path prefix must contain the endpoint (400 otherwise, and the
 * credential is never decrypted); the policy's timeout and response limit then apply. Without
 * one, nothing secret is sent. The network exchange happens before the transaction opens; a
 * server that cannot be reached or answers badly is a 400 naming the reason.
 */
export async function discoverMcpServer({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: McpDiscoveryDeps;
  input: { serverId: string } & v.InferInput<typeof DiscoverMcpServerInput>;
}): Promise<{ server: PublicMcpServer; version: PublicMcpServerVersion; changed: boolean }> {
  const { credentialPolicyVersionId } = v.parse(DiscoverMcpServerInput, { credentialPolicyVersionId: input.credentialPolicyVersionId });
  const server = await findMcpServer(ctx, input.serverId);
  const endpointProblem = endpointUrlProblem(server.endpointUrl, deps.policy);
  if (endpointProblem) throw new ValidationError(`The server's ${endpointProblem} on this installation`, { path: 'endpointUrl' });

  let access: McpAccess = {
    endpointUrl: server.endpointUrl,
    transport: server.transport,
    timeoutMs: DISCOVERY_TIMEOUT_MS,
    maximumResponseBytes: DISCOVERY_MAX_RESPONSE_BYTES,
    contains: (url) => url.origin === new URL(server.endpointUrl).origin,
    credentialHeader: null,
    allowPrivateNetwork: deps.policy.allowPrivateNetwork,
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
  };
  if (credentialPolicyVersionId) {
    const path = 'body.credentialPolicyVersionId';
    const loaded = await findPolicyVersion(ctx, credentialPolicyVersionId);
    if (!loaded) throw new ValidationError('credentialPolicyVersionId names no credential policy version of this organization', { path });
    if (loaded.credential.revokedAt) throw new ValidationError('The credential policy is not active: its credential is revoked', { path });
    if (!policyContains(loaded.version, server.endpointUrl)) {
      throw new ValidationError("The credential policy's exact origin and path prefix do not contain the server's endpoint", { path });
    }
    const rules = loaded.version;
    access = {
      ...access,
      timeoutMs: rules.timeoutMs,
      maximumResponseBytes: rules.maximumResponseBytes,
      contains: (url) => policyContains(rules, url.toString()),
      credentialHeader: credentialHeaderOf(deps.keyring, loaded.credential),
    };
  }

  const listed = await listMcpTools(access, MAX_DISCOVERED_TOOLS);
  if (!listed.ok) throw new ValidationError(`Discovery failed: ${describeMcpFailure(listed.failure)}`, { reason: listed.failure.kind });
  if ('tooMany' in listed.value)
    throw new ValidationError(`Discovery failed: the server lists more than ${MAX_DISCOVERED_TOOLS} tools`, { reason: 'too_many_tools' });
  const snapshot = toToolSnapshot(listed.value.tools);
  if ('problem' in snapshot) throw new ValidationError(`Discovery failed: ${snapshot.problem}`, { reason: 'invalid_tool_list' });

  return withTransaction(ctx, (tx) => publishIfChanged(tx, { serverId: server.id, tools: snapshot.tools, authenticated: access.credentialHeader !== null }));
}

async function publishIfChanged(tx: ServiceContext, input: { serverId: string; tools: McpToolSnapshotEntry[]; authenticated: boolean }) {
  const server = await findMcpServer(tx, input.serverId, { forUpdate: true });
  const hash = toolSnapshotHash(input.tools);
  const [latest] = await tx.db
    .select()
    .from(mcpServerVersions)
    .where(and(eq(mcpServerVersions.serverId, server.id), eq(mcpServerVersions.version, server.latestVersion)));
  if (latest!.toolsHash === hash) {
    const versions = (await versionsOfServers(tx, [server.id])).get(server.id)!;
    return { server: toMcpServerResponse(server, versions), version: toMcpServerVersionResponse(latest!), changed: false };
  }
  const now = tx.clock.now();
  const next = server.latestVersion + 1;
  const [version] = await tx.db
    .insert(mcpServerVersions)
    .values({
      organizationId: server.organizationId,
      serverId: server.id,
      version: next,
      tools: input.tools,
      toolsHash: hash,
      discoveredAt: now,
      createdByPrincipalId: tx.actor?.principalId ?? null,
      createdAt: now,
    })
    .returning();
  const [updated] = await tx.db.update(mcpServers).set({ latestVersion: next }).where(eq(mcpServers.id, server.id)).returning();
  await recordAudit(tx, {
    action: 'mcp_server.discovered',
    targetType: 'mcp_server',
    targetId: server.id,
    details: { version: next, versionId: version!.id, toolCount: input.tools.length, authenticated: input.authenticated },
  });
  const versions = (await versionsOfServers(tx, [server.id])).get(server.id)!;
  return { server: toMcpServerResponse(updated!, versions), version: toMcpServerVersionResponse(version!), changed: true };
}
