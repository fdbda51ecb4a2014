import * as v from 'valibot';
import type { CreatedDirectoryShape } from '../../../domain/public-shapes/skills.ts';
import { skillDraftEntries } from '../../../db/schema/index.ts';
import { ConflictError, ValidationError } from '../../../domain/errors.ts';
import { planPlacement } from '../../../domain/skills/draft-tree.ts';
import { CreateDraftDirectoryInput } from '../../../domain/skills/drafts.ts';
import { SKILL_DRAFT_MAX_DIRECTORIES } from '../../../domain/skills/limits.ts';
import { packagePathProblem } from '../../../domain/skills/path.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findDraft, listEntryIndex, touchDraft } from './load.ts';

export type CreatedDirectory = v.InferOutput<typeof CreatedDirectoryShape>;

/**
 * Creates a folder in a draft with any missing parents. An existing folder is success with
 * `created: false`; a path that is (or passes through) a file, or differs from an existing
 * entry only in letter case, is a 409.
 */
export async function createSkillDraftDirectory({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { draftId: string } & CreateDraftDirectoryInput;
}): Promise<CreatedDirectory> {
  const actor = requireActor(ctx);
  const { path } = v.parse(CreateDraftDirectoryInput, { path: input.path });
  const problem = packagePathProblem(path, 'directory');
  if (problem) throw new ValidationError(`Invalid body: body.path: path ${problem}`, { path: 'body.path' });
  return withTransaction(ctx, async (tx) => {
    const draft = await findDraft(tx, actor, input.draftId, { lock: true });
    const entries = await listEntryIndex(tx, draft);
    const placement = planPlacement(entries, path, 'directory');
    if (!placement.ok) throw new ConflictError(placement.message, { path: 'body.path' });
    if (placement.existing) return { path, kind: 'directory' as const, created: false, createdPaths: [] };
    const createdPaths = [...placement.createDirectories, path];
    const directories = entries.filter((entry) => entry.kind === 'directory').length + createdPaths.length;
    if (directories > SKILL_DRAFT_MAX_DIRECTORIES) {
      throw new ValidationError(`A Skill draft holds at most ${SKILL_DRAFT_MAX_DIRECTORIES} folders`, { path: 'body.path' });
    }
    const now = tx.clock.now();
    await tx.db.insert(skillDraftEntries).values(
      createdPaths.map((folder) => ({
        draftId: draft.id,
        organizationId: draft.organizationId,
        projectId: draft.projectId,
        path: folder,
        kind: 'directory' as const,
        createdAt: now,
      })),
    );
    await touchDraft(tx, draft);
    return { path, kind: 'directory' as const, created: true, createdPaths };
  });
}
