import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import { sessions } from '../../../db/schema/index.ts';
import { UpdateSessionInput } from '../../../domain/sessions/inputs.ts';
import { publicSessionBudget, storedSessionBudget } from '../../../domain/usage/budget.ts';
import { EVENT_KINDS } from '../../../domain/runs/events.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { appendProductEvents } from '../../kernel/events/index.ts';
import { findSession } from '../runs/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { toSessionListItem, type PublicSessionListItem } from './public.ts';

/**
 * Changes a session's own fields (`PATCH /sessions/{id}`): its `title` (`null` clears it) and its
 * `budget` (replaced whole, `null` removes it; raising a spent budget lets the next turn run).
 * The pinned version, thread and runs never change. Appends `session.updated` naming what
 * changed (never the new text) and an audit entry; a change to the same value writes nothing.
 */
export async function updateSession({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { sessionId: string } & UpdateSessionInput;
}): Promise<PublicSessionListItem> {
  const { sessionId, ...fields } = input;
  const body = v.parse(UpdateSessionInput, fields);
  return withTransaction(ctx, async (tx) => {
    const session = await findSession({ ctx: tx, input: { sessionId }, options: { forUpdate: true } });
    const title = body.title === undefined ? session.title : body.title ? body.title : null;
    const budget =
      body.budget === undefined ? { maxCostNanos: session.budgetMaxCostNanos, maxTokens: session.budgetMaxTokens } : storedSessionBudget(body.budget);
    const changed = [
      ...(title !== session.title ? ['title'] : []),
      ...(budget.maxCostNanos !== session.budgetMaxCostNanos || budget.maxTokens !== session.budgetMaxTokens ? ['budget'] : []),
    ];
    if (changed.length === 0) return toSessionListItem(session);
    const [updated] = await tx.db
      .update(sessions)
      .set({ title, budgetMaxCostNanos: budget.maxCostNanos, budgetMaxTokens: budget.maxTokens })
      .where(eq(sessions.id, session.id))
      .returning();
    await recordAudit(tx, {
      action: 'session.updated',
      targetType: 'session',
      targetId: session.id,
      details: { changed, ...(changed.includes('budget') ? { budget: publicSessionBudget(budget) } : {}) },
    });
    await appendProductEvents(tx, {
      organizationId: session.organizationId,
      projectId: session.projectId,
      events: [{ aggregateType: 'session', aggregateId: session.id, kind: EVENT_KINDS.sessionUpdated, publicPayload: { sessionId: session.id, changed } }],
    });
    return toSessionListItem(updated!);
  });
}
