import { and, desc, eq, lt, or } from 'drizzle-orm';
import { apiKeys } from '../../db/schema/index.ts';
import { ValidationError } from '../../domain/errors.ts';
import { decodeKeysetCursor, toPage, type Page } from '../../domain/pagination.ts';
import type { ServiceContext } from '../context.ts';
import { assertOrganizationAdministrator } from '../projects/authorize.ts';
import { requireActor } from '../require-actor.ts';
import { toApiKeyResponse, type PublicApiKey } from './public.ts';

/** The organization's API keys, newest first, revoked ones included (with `revokedAt`). */
export async function listApiKeys({ ctx, input }: { ctx: ServiceContext; input: { limit: number; cursor?: string | undefined } }): Promise<Page<PublicApiKey>> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  const after = input.cursor ? decodeKeysetCursor(input.cursor) : null;
  if (input.cursor && !after) throw new ValidationError('cursor is not valid', { path: 'query.cursor' });
  const rows = await ctx.db
    .select()
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.organizationId, actor.organizationId),
        after ? or(lt(apiKeys.createdAt, after.createdAt), and(eq(apiKeys.createdAt, after.createdAt), lt(apiKeys.id, after.id))) : undefined,
      ),
    )
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toApiKeyResponse);
}
