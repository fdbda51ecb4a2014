import { auditEntries } from '../../../db/schema/index.ts';
import { holdWrite } from '../pending-writes.ts';
import type { ServiceContext } from '../service-context.ts';

/**
 * Appends an audit entry in the caller's transaction. `details` must be safe: never a secret,
 * a token or a full URL with credentials.
 */
export async function recordAudit(
  ctx: ServiceContext,
  entry: { projectId?: string; action: string; targetType: string; targetId: string; details?: Record<string, unknown> },
): Promise<void> {
  const actor = ctx.actor;
  if (!actor) throw new Error('recordAudit needs an actor');
  // In a transaction, sent with its next event append (`holdWrite`): an entry is never read back there.
  await holdWrite(
    ctx,
    ctx.db.insert(auditEntries).values({
      organizationId: actor.organizationId,
      projectId: entry.projectId ?? actor.projectId,
      principalId: actor.principalId,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      details: entry.details ?? {},
      requestId: ctx.requestId,
      occurredAt: ctx.clock.now(),
    }),
  );
}
