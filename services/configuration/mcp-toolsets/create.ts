import { and, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { mcpToolsets, mcpToolsetVersions } from '../../../db/schema/index.ts';
import { canonicalJson } from '../../../domain/canonical-json.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { CreateMcpToolsetInput } from '../../../domain/mcp/inputs.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { findMcpServerVersion } from '../mcp-servers/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { versionsOfToolsets } from './load.ts';
import { toMcpToolsetResponse, type McpToolsetVersionRow, type PublicMcpToolset } from './public.ts';

/**
 * Publishes a project toolset version: version 1 of a new key or the next version of an
 * existing one, pinned to one MCP server version of the organization and selecting 1-64 tools
 * of that version's snapshot (400 naming the entry otherwise). Content equal to the newest
 * version publishes nothing (`created: false`).
 */
export async function createMcpToolset({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: v.InferInput<typeof CreateMcpToolsetInput>;
}): Promise<{ toolset: PublicMcpToolset; created: boolean }> {
  const actor = requireActor(ctx);
  const parsed = v.parse(CreateMcpToolsetInput, input);
  return withTransaction(ctx, async (tx) => {
    const found = await findMcpServerVersion(tx, parsed.serverVersionId);
    if (!found) throw new ValidationError('serverVersionId names no MCP server version of this organization', { path: 'body.serverVersionId' });
    const offered = new Set(found.version.tools.map((tool) => tool.name));
    for (const [index, tool] of parsed.tools.entries()) {
      if (!offered.has(tool.remoteToolName)) {
        throw new ValidationError(`"${tool.remoteToolName}" is not a tool of version ${found.version.version} of MCP server "${found.server.key}"`, {
          path: `body.tools.${index}.remoteToolName`,
        });
      }
    }
    const now = tx.clock.now();
    await tx.db
      .insert(mcpToolsets)
      .values({ organizationId: actor.organizationId, projectId: actor.projectId, key: parsed.key, latestVersion: 0, createdAt: now })
      .onConflictDoNothing();
    const [toolset] = await tx.db
      .select()
      .from(mcpToolsets)
      .where(and(eq(mcpToolsets.projectId, actor.projectId), eq(mcpToolsets.key, parsed.key)))
      .for('update');
    const content = { displayName: parsed.displayName, serverVersionId: parsed.serverVersionId, tools: parsed.tools };
    const existing = (await versionsOfToolsets(tx, [toolset!.id])).get(toolset!.id)!;
    const latest = existing.find((version) => version.version === toolset!.latestVersion);
    if (latest && sameContent(latest, content)) return { toolset: toMcpToolsetResponse(toolset!, existing), created: false };

    const next = toolset!.latestVersion + 1;
    const [version] = await tx.db
      .insert(mcpToolsetVersions)
      .values({
        organizationId: actor.organizationId,
        projectId: actor.projectId,
        toolsetId: toolset!.id,
        version: next,
        ...content,
        createdByPrincipalId: actor.principalId,
        createdAt: now,
      })
      .returning();
    const [updated] = await tx.db.update(mcpToolsets).set({ latestVersion: next }).where(eq(mcpToolsets.id, toolset!.id)).returning();
    await recordAudit(tx, {
      action: 'mcp_toolset.published',
      targetType: 'mcp_toolset',
      targetId: toolset!.id,
      details: {
        key: parsed.key,
        version: next,
        versionId: version!.id,
        serverVersionId: parsed.serverVersionId,
        tools: parsed.tools.map((tool) => tool.remoteToolName),
      },
    });
    return { toolset: toMcpToolsetResponse(updated!, [...existing, version!]), created: true };
  });
}

const sameContent = (row: McpToolsetVersionRow, content: Pick<McpToolsetVersionRow, 'displayName' | 'serverVersionId' | 'tools'>) =>
  canonicalJson({ displayName: row.displayName, serverVersionId: row.serverVersionId, tools: row.tools }) === canonicalJson(content);
