import { eq } from 'drizzle-orm';
import { organizations } from '../../../db/schema/index.ts';
import type { Page } from '../../../domain/pagination.ts';
import { toOrganizationResponse, type PublicOrganization } from '../projects/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';

/** The organizations the actor can see: its own, one page. */
export async function listOrganizations({ ctx }: { ctx: ServiceContext }): Promise<Page<PublicOrganization>> {
  const actor = requireActor(ctx);
  const rows = await ctx.db.select().from(organizations).where(eq(organizations.id, actor.organizationId));
  return { data: rows.map(toOrganizationResponse), pageInfo: { nextCursor: null } };
}
