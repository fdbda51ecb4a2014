import { and, eq, inArray } from 'drizzle-orm';
import * as v from 'valibot';
import type { DeletedEntryShape } from '../../../domain/public-shapes/skills.ts';
import { skillDraftEntries } from '../../../db/schema/index.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../../domain/errors.ts';
import { entriesAt } from '../../../domain/skills/draft-tree.ts';
import { DeleteDraftEntryQuery } from '../../../domain/skills/drafts.ts';
import { packagePathProblem } from '../../../domain/skills/path.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findDraft, listEntryIndex, touchDraft } from './load.ts';

export type DeletedEntry = v.InferOutput<typeof DeletedEntryShape>;

/**
 * Deletes a file or folder of a draft (the path matches case-insensitively). A folder with
 * contents needs `recursive=true` and then goes with everything inside; without it, a 409.
 * Parent folders stay, even when left empty. A missing path is a 404.
 */
export async function deleteSkillDraftEntry({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { draftId: string } & DeleteDraftEntryQuery;
}): Promise<DeletedEntry> {
  const actor = requireActor(ctx);
  const { path, recursive } = v.parse(DeleteDraftEntryQuery, { path: input.path, recursive: input.recursive });
  // Any valid path of either kind: a file rule (".md") would hide a folder.
  const problem = packagePathProblem(path, 'directory');
  if (problem) throw new ValidationError(`Invalid query: query.path: path ${problem}`, { path: 'query.path' });
  return withTransaction(ctx, async (tx) => {
    const draft = await findDraft(tx, actor, input.draftId, { lock: true });
    const { entry, within } = entriesAt(await listEntryIndex(tx, draft), path);
    if (!entry) throw new NotFoundError('No file or folder at that path in this draft', { path: 'query.path' });
    if (within.length > 0 && recursive !== 'true') {
      throw new ConflictError(`The folder "${entry.path}" is not empty; pass recursive=true to delete it with its contents`, { path: 'query.path' });
    }
    const deletedPaths = [entry.path, ...within.map((child) => child.path)];
    await tx.db.delete(skillDraftEntries).where(and(eq(skillDraftEntries.draftId, draft.id), inArray(skillDraftEntries.path, deletedPaths)));
    await touchDraft(tx, draft);
    return { path: entry.path, kind: entry.kind, deleted: true as const, deletedPaths: deletedPaths.sort() };
  });
}
