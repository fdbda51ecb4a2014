import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import { skillDrafts } from '../../../db/schema/index.ts';
import type { SkillProblem } from '../../../domain/skills/fields.ts';
import {
  allowedToolsProblems,
  compatibilityProblem,
  descriptionProblem,
  instructionsProblem,
  licenseProblem,
  metadataProblems,
  nameProblem,
} from '../../../domain/skills/fields.ts';
import { UpdateSkillDraftInput } from '../../../domain/skills/drafts.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { throwProblems } from '../skills/index.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findDraft, listEntries } from './load.ts';
import { toSkillDraftResponse, type PublicSkillDraft } from './public.ts';

/**
 * Saves any subset of a draft's manifest fields and instructions. Each given value must pass
 * the version rule for its field (400 with `details.path`, e.g. `body.name`); `null` clears a
 * field. `metadata` and `allowedTools` are replaced whole.
 */
export async function updateSkillDraft({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { draftId: string; changes: UpdateSkillDraftInput };
}): Promise<PublicSkillDraft> {
  const actor = requireActor(ctx);
  const changes = v.parse(UpdateSkillDraftInput, input.changes);
  throwProblems(changeProblems(changes), 'body');
  return withTransaction(ctx, async (tx) => {
    const draft = await findDraft(tx, actor, input.draftId, { lock: true });
    const [updated] = await tx.db
      .update(skillDrafts)
      .set({ ...changes, updatedAt: tx.clock.now() })
      .where(eq(skillDrafts.id, draft.id))
      .returning();
    return toSkillDraftResponse(updated!, await listEntries(tx, draft));
  });
}

function changeProblems(changes: UpdateSkillDraftInput): SkillProblem[] {
  const problems: SkillProblem[] = [];
  const check = (path: string, value: string | null | undefined, rule: (value: string) => string | null) => {
    const message = value === undefined || value === null ? null : rule(value);
    if (message) problems.push({ path, message });
  };
  check('name', changes.name, nameProblem);
  check('description', changes.description, descriptionProblem);
  check('instructions', changes.instructions, instructionsProblem);
  check('license', changes.license, licenseProblem);
  check('compatibility', changes.compatibility, compatibilityProblem);
  if (changes.metadata) problems.push(...metadataProblems(changes.metadata));
  if (changes.allowedTools) problems.push(...allowedToolsProblems(changes.allowedTools));
  return problems;
}
