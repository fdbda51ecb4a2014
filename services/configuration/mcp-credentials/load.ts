import { and, eq } from 'drizzle-orm';
import { mcpCredentials } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { McpCredentialRow } from './public.ts';

/** A credential of the actor's organization (404 otherwise), optionally locked. */
export async function findMcpCredential(ctx: ServiceContext, credentialId: string, options: { forUpdate?: boolean } = {}): Promise<McpCredentialRow> {
  const actor = requireActor(ctx);
  const query = ctx.db
    .select()
    .from(mcpCredentials)
    .where(and(eq(mcpCredentials.id, credentialId), eq(mcpCredentials.organizationId, actor.organizationId)));
  const [row] = options.forUpdate ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('MCP credential not found');
  return row;
}
