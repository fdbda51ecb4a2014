import { and, eq } from 'drizzle-orm';
import { apiKeys } from '../../../db/schema/index.ts';

import { toPage, type Page } from '../../../domain/pagination.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { assertOrganizationAdministrator } from '../projects/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { toApiKeyResponse, type PublicApiKey } from './public.ts';

/** The organization's API keys, newest first, revoked ones included (with `revokedAt`). */
export async function listApiKeys({ ctx, input }: { ctx: ServiceContext; input: { limit: number; cursor?: string | undefined } }): Promise<Page<PublicApiKey>> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  const page = keysetPage({ createdAt: apiKeys.createdAt, id: apiKeys.id }, input.cursor, 'desc');
  const rows = await ctx.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.organizationId, actor.organizationId), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toApiKeyResponse);
}
