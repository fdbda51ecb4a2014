import { and, eq } from 'drizzle-orm';
import { sandboxProviders } from '../../../db/schema/index.ts';
import { toPage, type Page } from '../../../domain/pagination.ts';
import { toPublicSnapshot, type PublicSnapshot, type Snapshot } from '../../../domain/sandbox/snapshot-registry.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { keysetPage } from '../../kernel/keyset.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { loadSandboxProvider } from './load.ts';
import { toSandboxProviderResponse, type PublicSandboxProvider } from './public.ts';

/** The organization's sandbox connections, oldest first. */
export async function listSandboxProviders({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; cursor?: string | undefined };
}): Promise<Page<PublicSandboxProvider>> {
  const actor = requireActor(ctx);
  const page = keysetPage({ createdAt: sandboxProviders.createdAt, id: sandboxProviders.id }, input.cursor, 'asc');
  const rows = await ctx.db
    .select()
    .from(sandboxProviders)
    .where(and(eq(sandboxProviders.organizationId, actor.organizationId), page.after))
    .orderBy(...page.orderBy)
    .limit(input.limit + 1);
  return toPage(rows, input.limit, toSandboxProviderResponse);
}

/**
 * Every snapshot visible to the connection (spec 2): with the local driver, every registered
 * snapshot. Root filesystem paths, build logs and provider payloads never appear.
 */
export async function listSandboxSnapshots({
  ctx,
  snapshots,
  input,
}: {
  ctx: ServiceContext;
  snapshots: readonly Snapshot[];
  input: { providerId: string };
}): Promise<{ data: PublicSnapshot[]; pageInfo: { nextCursor: null } }> {
  const actor = requireActor(ctx);
  await loadSandboxProvider(ctx, { organizationId: actor.organizationId, providerId: input.providerId });
  return { data: snapshots.map(toPublicSnapshot), pageInfo: { nextCursor: null } };
}
