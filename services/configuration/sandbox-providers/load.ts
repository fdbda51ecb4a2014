import { and, eq } from 'drizzle-orm';
import { sandboxProviders } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { SandboxProviderRow } from './public.ts';

/** A sandbox connection of the organization, or 404 (another organization's looks the same). */
export async function loadSandboxProvider(
  ctx: ServiceContext,
  input: { organizationId: string; providerId: string; lock?: boolean },
): Promise<SandboxProviderRow> {
  const query = ctx.db
    .select()
    .from(sandboxProviders)
    .where(and(eq(sandboxProviders.id, input.providerId), eq(sandboxProviders.organizationId, input.organizationId)));
  const [row] = input.lock ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('No sandbox provider connection with that id in this organization');
  return row;
}
