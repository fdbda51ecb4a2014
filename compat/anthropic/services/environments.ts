import { and, eq, isNull } from 'drizzle-orm';
import { patchedMetadata } from '../domain/metadata.ts';
import { isOurId } from '../domain/ids.ts';
import { compatAnthropicEnvironments } from '../tables.ts';
import { projectCreatedAt } from '../../../services/access/projects/index.ts';
import {
  DEFAULT_ENVIRONMENT_ID,
  defaultEnvironment,
  environmentConfigOf,
  renderEnvironment,
  type CmaEnvironment,
  type CreateEnvironmentParams,
  type EnvironmentConfig,
  type EnvironmentRecord,
  type UpdateEnvironmentParams,
} from '../domain/environments.ts';
import { NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { toPage } from '../../../domain/pagination.ts';
import { recordAudit } from '../../../services/kernel/audit/index.ts';
import { keysetPage } from '../../../services/kernel/keyset.ts';
import { requireActor } from '../../../services/kernel/require-actor.ts';
import type { ServiceContext } from '../../../services/kernel/service-context.ts';
import { withTransaction } from '../../../services/kernel/transaction.ts';

/** Claude Managed Agents environments of the actor's project (`/compat/anthropic/v1/environments`). */

type Row = typeof compatAnthropicEnvironments.$inferSelect;

const recordOf = (row: Row): EnvironmentRecord => ({ ...row, config: row.config as unknown as EnvironmentConfig });

/** 404 with the SDK's `environment_not_found` code (`BetaEnvironmentNotFoundError`). */
export const environmentNotFound = () => new NotFoundError('No environment with that id in this project', { error_code: 'environment_not_found' });

export async function createCompatEnvironment({ ctx, input }: { ctx: ServiceContext; input: CreateEnvironmentParams }): Promise<CmaEnvironment> {
  const actor = requireActor(ctx);
  if (input.scope && input.scope !== 'organization')
    throw new ValidationError('scope: only "organization" is supported by this server', { path: 'body.scope' });
  const config = environmentConfigOf(input.config);
  const metadata = patchedMetadata({}, input.metadata);
  return withTransaction(ctx, async (tx) => {
    const now = tx.clock.now();
    const [row] = await tx.db
      .insert(compatAnthropicEnvironments)
      .values({
        organizationId: actor.organizationId,
        projectId: actor.projectId,
        name: input.name,
        description: input.description ?? null,
        config: config as unknown as Record<string, unknown>,
        metadata,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await recordAudit(tx, { action: 'compat.environment_created', targetType: 'environment', targetId: row!.id });
    return renderEnvironment(recordOf(row!));
  });
}

/** One environment: `env_default` or a stored one (archived ones too); 404 `environment_not_found` otherwise. */
export async function findCompatEnvironment(ctx: ServiceContext, id: string, options: { forUpdate?: boolean } = {}): Promise<EnvironmentRecord> {
  const actor = requireActor(ctx);
  if (id === DEFAULT_ENVIRONMENT_ID) return defaultEnvironment(await projectCreatedAt(ctx));
  if (!isOurId(id)) throw environmentNotFound();
  const query = ctx.db
    .select()
    .from(compatAnthropicEnvironments)
    .where(and(eq(compatAnthropicEnvironments.id, id), eq(compatAnthropicEnvironments.projectId, actor.projectId)));
  const [row] = options.forUpdate ? await query.for('update') : await query;
  if (!row) throw environmentNotFound();
  return recordOf(row);
}

export async function getCompatEnvironment({ ctx, input }: { ctx: ServiceContext; input: { id: string } }): Promise<CmaEnvironment> {
  return renderEnvironment(await findCompatEnvironment(ctx, input.id));
}

export async function updateCompatEnvironment({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { id: string; params: UpdateEnvironmentParams };
}): Promise<CmaEnvironment> {
  if (input.id === DEFAULT_ENVIRONMENT_ID) throw new ValidationError('env_default cannot be changed', { path: 'path.environment_id' });
  return withTransaction(ctx, async (tx) => {
    const current = await findCompatEnvironment(tx, input.id, { forUpdate: true });
    if (current.archivedAt) throw new ValidationError('The environment is archived', { error_code: 'environment_archived' });
    const { params } = input;
    const [row] = await tx.db
      .update(compatAnthropicEnvironments)
      .set({
        ...(params.name !== undefined ? { name: params.name } : {}),
        ...(params.description !== undefined ? { description: params.description } : {}),
        ...(params.config !== undefined ? { config: environmentConfigOf(params.config) as unknown as Record<string, unknown> } : {}),
        metadata: patchedMetadata(current.metadata, params.metadata),
        updatedAt: tx.clock.now(),
      })
      .where(eq(compatAnthropicEnvironments.id, current.id))
      .returning();
    await recordAudit(tx, { action: 'compat.environment_updated', targetType: 'environment', targetId: current.id });
    return renderEnvironment(recordOf(row!));
  });
}

/** `env_default` first, then the project's environments oldest first; archived ones only when asked. */
export async function listCompatEnvironments({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { limit: number; page: string | undefined; includeArchived: boolean };
}): Promise<{ data: CmaEnvironment[]; next_page: string | null }> {
  const actor = requireActor(ctx);
  const limit = Math.min(input.limit, 200);
  const keyset = keysetPage({ createdAt: compatAnthropicEnvironments.createdAt, id: compatAnthropicEnvironments.id }, input.page, 'asc');
  const rows = await ctx.db
    .select()
    .from(compatAnthropicEnvironments)
    .where(
      and(
        eq(compatAnthropicEnvironments.projectId, actor.projectId),
        input.includeArchived ? undefined : isNull(compatAnthropicEnvironments.archivedAt),
        keyset.after,
      ),
    )
    .orderBy(...keyset.orderBy)
    .limit(limit + 1);
  const page = toPage(rows, limit, (row) => renderEnvironment(recordOf(row)));
  const first = input.page === undefined ? [renderEnvironment(defaultEnvironment(await projectCreatedAt(ctx)))] : [];
  return { data: [...first, ...page.data], next_page: page.pageInfo.nextCursor };
}

export async function archiveCompatEnvironment({ ctx, input }: { ctx: ServiceContext; input: { id: string } }): Promise<CmaEnvironment> {
  if (input.id === DEFAULT_ENVIRONMENT_ID) throw new ValidationError('env_default cannot be archived', { path: 'path.environment_id' });
  return withTransaction(ctx, async (tx) => {
    const current = await findCompatEnvironment(tx, input.id, { forUpdate: true });
    if (current.archivedAt) return renderEnvironment(current);
    const now = tx.clock.now();
    const [row] = await tx.db
      .update(compatAnthropicEnvironments)
      .set({ archivedAt: now, updatedAt: now })
      .where(eq(compatAnthropicEnvironments.id, current.id))
      .returning();
    await recordAudit(tx, { action: 'compat.environment_archived', targetType: 'environment', targetId: current.id });
    return renderEnvironment(recordOf(row!));
  });
}

export async function deleteCompatEnvironment({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { id: string };
}): Promise<{ id: string; type: 'environment_deleted' }> {
  if (input.id === DEFAULT_ENVIRONMENT_ID) throw new ValidationError('env_default cannot be deleted', { path: 'path.environment_id' });
  return withTransaction(ctx, async (tx) => {
    const current = await findCompatEnvironment(tx, input.id, { forUpdate: true });
    await tx.db.delete(compatAnthropicEnvironments).where(eq(compatAnthropicEnvironments.id, current.id));
    await recordAudit(tx, { action: 'compat.environment_deleted', targetType: 'environment', targetId: current.id });
    return { id: current.id, type: 'environment_deleted' as const };
  });
}
