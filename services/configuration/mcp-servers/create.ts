import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { mcpServers, mcpServerVersions } from '../../../db/schema/index.ts';
import { ConflictError, ValidationError } from '../../../domain/errors.ts';
import { CreateMcpServerInput } from '../../../domain/mcp/inputs.ts';
import { endpointOrigin, endpointUrlProblem } from '../../../domain/outbound/endpoint-url.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { McpEndpointPolicy } from '../../../domain/mcp/types.ts';
import { withTransaction } from '../../kernel/transaction.ts';

export type { McpEndpointPolicy };
import { isUniqueViolation } from '../../kernel/unique-violation.ts';
import { toMcpServerResponse, type PublicMcpServer } from './public.ts';
import { toolSnapshotHash } from './tool-snapshot-hash.ts';

/**
 * Registers a remote MCP server for the organization with its immutable version 1, whose tool
 * snapshot is empty until the first discovery. The endpoint must be HTTPS on a public host
 * (literal addresses are checked here, names at every connection); a development server may
 * allow `http://` and private networks. A second server with the same key is a 409.
 */
export async function createMcpServer({
  ctx,
  policy,
  input,
}: {
  ctx: ServiceContext;
  policy: McpEndpointPolicy;
  input: CreateMcpServerInput;
}): Promise<PublicMcpServer> {
  const actor = requireActor(ctx);
  const parsed = v.parse(CreateMcpServerInput, input);
  const problem = endpointUrlProblem(parsed.endpointUrl, policy);
  if (problem) throw new ValidationError(problem, { path: 'body.endpointUrl' });
  if (new URL(parsed.endpointUrl).search !== '') throw new ValidationError('endpointUrl must not contain a query string', { path: 'body.endpointUrl' });
  const id = randomUUID();
  return withTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    let server;
    try {
      [server] = await tx.db
        .insert(mcpServers)
        .values({ id, organizationId: actor.organizationId, ...parsed, latestVersion: 1, createdByPrincipalId: actor.principalId, createdAt: now })
        .returning();
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(`An MCP server with key "${parsed.key}" already exists in this organization`);
      throw error;
    }
    const [version] = await tx.db
      .insert(mcpServerVersions)
      .values({
        organizationId: actor.organizationId,
        serverId: id,
        version: 1,
        tools: [],
        toolsHash: toolSnapshotHash([]),
        discoveredAt: null,
        createdByPrincipalId: actor.principalId,
        createdAt: now,
      })
      .returning();
    await recordAudit(tx, {
      action: 'mcp_server.created',
      targetType: 'mcp_server',
      targetId: id,
      details: { key: parsed.key, transport: parsed.transport, endpointOrigin: endpointOrigin(parsed.endpointUrl), versionId: version!.id },
    });
    return toMcpServerResponse(server!, [version!]);
  });
}
