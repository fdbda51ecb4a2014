import { asc, eq } from 'drizzle-orm';
import { sandboxProviders } from '../../../db/schema/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';

/** The key of the organization's default sandbox connection: the one keyed `default`, else its oldest; undefined when it has none. */
export async function defaultSandboxConnectionKey({ ctx }: { ctx: ServiceContext }): Promise<string | undefined> {
  const connections = await ctx.db
    .select({ key: sandboxProviders.key })
    .from(sandboxProviders)
    .where(eq(sandboxProviders.organizationId, requireActor(ctx).organizationId))
    .orderBy(asc(sandboxProviders.createdAt), asc(sandboxProviders.id));
  return (connections.find((row) => row.key === 'default') ?? connections[0])?.key;
}
