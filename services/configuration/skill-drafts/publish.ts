import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import type { PublishedSkillDraftShape } from '../../../domain/public-shapes/skills.ts';
import { skillDrafts } from '../../../db/schema/index.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { PublishSkillDraftInput } from '../../../domain/skills/drafts.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { Actor, ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { throwProblems } from '../skills/index.ts';
import { insertSkill } from '../skills/index.ts';
import { insertSkillVersion } from '../skills/index.ts';
import { findLiveSkill, type SkillRow } from '../skills/index.ts';
import { toSkillResponse } from '../skills/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findDraft, listEntries, type DraftRow } from './load.ts';
import { stagedPackage } from './package.ts';

export type PublishedSkillDraft = v.InferOutput<typeof PublishedSkillDraftShape>;

/**
 * Publishes a draft atomically and consumes it (the draft is deleted on success). A cloned
 * draft publishes its Skill's next version (404 if the Skill was removed); a blank draft creates
 * a Skill with version 1 and needs `key` and `displayName` in the body (409 for a live key).
 * An invalid package is a 400 naming the first problem (`details.path`, as in validate);
 * content identical to an earlier version of the Skill is a 409. Folders are not published:
 * a version keeps only files, whose paths imply their folders.
 */
export async function publishSkillDraft({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { draftId: string; body: PublishSkillDraftInput };
}): Promise<PublishedSkillDraft> {
  const actor = requireActor(ctx);
  const body = v.parse(PublishSkillDraftInput, input.body);
  return withTransaction(ctx, async (tx) => {
    const draft = await findDraft(tx, actor, input.draftId, { lock: true });
    const { content, problems } = stagedPackage(draft, await listEntries(tx, draft));
    throwProblems(problems, '');
    const skill = await targetSkill(tx, actor, draft, body);
    const version = await insertSkillVersion(tx, actor, skill, content);
    await tx.db.delete(skillDrafts).where(eq(skillDrafts.id, draft.id));
    return { draftId: draft.id, skill: toSkillResponse(await findLiveSkill(tx, actor, skill.id), version), version };
  });
}

async function targetSkill(tx: ServiceContext, actor: Actor, draft: DraftRow, body: PublishSkillDraftInput): Promise<SkillRow> {
  if (draft.skillId) {
    if (body.key !== undefined || body.displayName !== undefined) {
      throw new ValidationError('key and displayName apply only to a blank draft; a cloned draft publishes a version of its Skill', {
        path: body.key !== undefined ? 'body.key' : 'body.displayName',
      });
    }
    return findLiveSkill(tx, actor, draft.skillId, { lock: true });
  }
  if (body.key === undefined) throw new ValidationError('key is required to publish a blank draft as a new Skill', { path: 'body.key' });
  if (body.displayName === undefined)
    throw new ValidationError('displayName is required to publish a blank draft as a new Skill', { path: 'body.displayName' });
  const skill = await insertSkill(tx, { organizationId: actor.organizationId, projectId: actor.projectId, key: body.key, displayName: body.displayName });
  await recordAudit(tx, { action: 'skill.created', targetType: 'skill', targetId: skill.id, details: { key: body.key, fromDraft: draft.id } });
  return skill;
}
