import { and, eq, sql } from 'drizzle-orm';
import { skillDraftEntries, skillDrafts } from '../../../db/schema/index.ts';
import { NotFoundError } from '../../../domain/errors.ts';
import type { EntryKind } from '../../../domain/skills/path.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';

export type DraftRow = typeof skillDrafts.$inferSelect;
export type EntryRow = typeof skillDraftEntries.$inferSelect;
/** An entry without its bytes: what path checks need. */
export type EntryIndexRow = { path: string; kind: EntryKind; sizeBytes: number };

/**
 * A draft of the actor's project, or 404. `lock` serializes writers of one draft, so the
 * folder/file checks below see every committed entry and cannot race each other.
 */
export async function findDraft(ctx: ServiceContext, actor: Actor, draftId: string, options: { lock?: boolean } = {}): Promise<DraftRow> {
  const query = ctx.db
    .select()
    .from(skillDrafts)
    .where(and(eq(skillDrafts.id, draftId), eq(skillDrafts.organizationId, actor.organizationId), eq(skillDrafts.projectId, actor.projectId)));
  const [row] = options.lock ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('No Skill draft with that id in this project');
  return row;
}

/** Every entry of a draft, with bytes. */
export function listEntries(ctx: ServiceContext, draft: DraftRow): Promise<EntryRow[]> {
  return ctx.db
    .select()
    .from(skillDraftEntries)
    .where(and(eq(skillDraftEntries.draftId, draft.id), eq(skillDraftEntries.projectId, draft.projectId)));
}

/** Every entry of a draft without bytes (the database decodes them to measure sizes). */
export function listEntryIndex(ctx: ServiceContext, draft: DraftRow): Promise<EntryIndexRow[]> {
  return ctx.db
    .select({
      path: skillDraftEntries.path,
      kind: skillDraftEntries.kind,
      sizeBytes: sql<number>`coalesce(length(decode(${skillDraftEntries.dataBase64}, 'base64')), 0)`.mapWith(Number),
    })
    .from(skillDraftEntries)
    .where(and(eq(skillDraftEntries.draftId, draft.id), eq(skillDraftEntries.projectId, draft.projectId)));
}

/** Marks the draft as changed (entries have no timestamps of their own worth showing). */
export async function touchDraft(tx: ServiceContext, draft: DraftRow): Promise<void> {
  await tx.db.update(skillDrafts).set({ updatedAt: tx.clock.now() }).where(eq(skillDrafts.id, draft.id));
}
