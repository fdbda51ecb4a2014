import * as v from 'valibot';
import type { PutFileResultShape } from '../../../domain/public-shapes/skills.ts';
import { skillDraftEntries } from '../../../db/schema/index.ts';
import { ConflictError, ValidationError } from '../../../domain/errors.ts';
import { planPlacement } from '../../../domain/skills/draft-tree.ts';
import { PutDraftFileInput } from '../../../domain/skills/drafts.ts';
import { contentTypeProblem, fileDataProblem } from '../../../domain/skills/file.ts';
import { SKILL_DRAFT_MAX_DIRECTORIES, SKILL_MAX_FILES, SKILL_PACKAGE_MAX_BYTES } from '../../../domain/skills/limits.ts';
import { withThousands } from '../../../domain/skills/fields.ts';
import { packagePathProblem } from '../../../domain/skills/path.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findDraft, listEntryIndex, touchDraft } from './load.ts';

export type PutFileResult = v.InferOutput<typeof PutFileResultShape>;

/**
 * Writes one file into a draft: UTF-8 Markdown (`.md`, `text/markdown`, canonical base64).
 * Missing parent folders are created; an existing file at the path is replaced; a folder at
 * the path, a file used as a parent, or a case-only clash with another entry is a 409. The
 * package file count and total size are enforced here too, so a draft never grows past what
 * could be published.
 */
export async function putSkillDraftFile({ ctx, input }: { ctx: ServiceContext; input: { draftId: string } & PutDraftFileInput }): Promise<PutFileResult> {
  const actor = requireActor(ctx);
  const file = v.parse(PutDraftFileInput, { path: input.path, contentType: input.contentType, dataBase64: input.dataBase64 });
  const sizeBytes = assertFile(file);
  return withTransaction(ctx, async (tx) => {
    const draft = await findDraft(tx, actor, input.draftId, { lock: true });
    const entries = await listEntryIndex(tx, draft);
    const placement = planPlacement(entries, file.path, 'file');
    if (!placement.ok) throw new ConflictError(placement.message, { path: 'body.path' });
    const others = entries.filter((entry) => entry.kind === 'file' && entry.path !== file.path);
    if (others.length + 1 > SKILL_MAX_FILES) throw new ValidationError(`A Skill package holds at most ${SKILL_MAX_FILES} files`, { path: 'body.path' });
    const total = others.reduce((sum, entry) => sum + entry.sizeBytes, sizeBytes);
    if (total > SKILL_PACKAGE_MAX_BYTES) {
      throw new ValidationError(`A Skill package holds at most ${withThousands(SKILL_PACKAGE_MAX_BYTES)} bytes of files`, { path: 'body.dataBase64' });
    }
    const directories = entries.filter((entry) => entry.kind === 'directory').length + placement.createDirectories.length;
    if (directories > SKILL_DRAFT_MAX_DIRECTORIES)
      throw new ValidationError(`A Skill draft holds at most ${SKILL_DRAFT_MAX_DIRECTORIES} folders`, { path: 'body.path' });

    const now = tx.clock.now();
    const owner = { draftId: draft.id, organizationId: draft.organizationId, projectId: draft.projectId, createdAt: now };
    const rows = [
      ...placement.createDirectories.map((path) => ({ ...owner, path, kind: 'directory' as const })),
      { ...owner, path: file.path, kind: 'file' as const, contentType: file.contentType, dataBase64: file.dataBase64 },
    ];
    await tx.db
      .insert(skillDraftEntries)
      .values(rows)
      .onConflictDoUpdate({ target: [skillDraftEntries.draftId, skillDraftEntries.path], set: { contentType: file.contentType, dataBase64: file.dataBase64 } });
    await touchDraft(tx, draft);
    return {
      path: file.path,
      kind: 'file' as const,
      contentType: file.contentType,
      sizeBytes,
      created: placement.existing === null,
      createdDirectories: placement.createDirectories,
    };
  });
}

/** The per-file rules, each reported at its body field; returns the decoded size. */
function assertFile(file: PutDraftFileInput): number {
  const pathProblem = packagePathProblem(file.path, 'file');
  if (pathProblem) throw new ValidationError(`Invalid body: body.path: path ${pathProblem}`, { path: 'body.path' });
  const typeProblem = contentTypeProblem(file.contentType);
  if (typeProblem) throw new ValidationError(`Invalid body: body.contentType: contentType ${typeProblem}`, { path: 'body.contentType' });
  const data = fileDataProblem(file.dataBase64);
  if (data.problem) throw new ValidationError(`Invalid body: body.dataBase64: dataBase64 ${data.problem}`, { path: 'body.dataBase64' });
  return data.size;
}
