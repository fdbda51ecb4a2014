import { and, eq } from 'drizzle-orm';
import { mcpCredentials } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { toMcpCredentialResponse, type PublicMcpCredential } from './public.ts';

/** The organization's MCP credentials (revoked ones included), oldest first, redacted. */
export async function listMcpCredentials({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; cursor?: string | undefined };
}): Promise<Page<PublicMcpCredential>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: mcpCredentials.createdAt, id: mcpCredentials.id }, input.cursor, 'asc');
  const rows = await ctx.db
    .select()
    .from(mcpCredentials)
    .where(and(eq(mcpCredentials.organizationId, actor.organizationId), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toMcpCredentialResponse);
}
