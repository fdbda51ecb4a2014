import { eq } from 'drizzle-orm';
import { organizations } from '../../../db/schema/index.ts';
import { ForbiddenError } from '../../../domain/errors.ts';
import { toOrganizationResponse, type PublicOrganization } from '../projects/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';

/** The actor's own organization; 403 for any other. */
export async function getOrganization({ ctx, input }: { ctx: ServiceContext; input: { organizationId: string } }): Promise<PublicOrganization> {
  const actor = requireActor(ctx);
  if (input.organizationId !== actor.organizationId) throw new ForbiddenError('The organization is outside the principal tenant');
  const [row] = await ctx.db.select().from(organizations).where(eq(organizations.id, actor.organizationId));
  return toOrganizationResponse(row!);
}
