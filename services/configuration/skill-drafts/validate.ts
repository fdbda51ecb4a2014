import type * as v from 'valibot';
import type { SkillDraftValidationShape } from '../../../domain/public-shapes/skills.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { skillContentHash } from '../skills/index.ts';
import { findDraft, listEntries } from './load.ts';
import { stagedPackage } from './package.ts';

export type SkillDraftValidation = v.InferOutput<typeof SkillDraftValidationShape>;

/**
 * Checks the staged package against the version rules without publishing. Always a 200: the
 * problems are the answer (`path` is a field, `metadata.<key>`, `allowedTools.<i>`,
 * `files/<package path>` or `directories/<package path>`). A valid draft also gets the content
 * hash it would publish with. Key availability and duplicate content are checked at publish.
 */
export async function validateSkillDraft({ ctx, input }: { ctx: ServiceContext; input: { draftId: string } }): Promise<SkillDraftValidation> {
  const actor = requireActor(ctx);
  const draft = await findDraft(ctx, actor, input.draftId);
  const { content, problems } = stagedPackage(draft, await listEntries(ctx, draft));
  return { valid: problems.length === 0, problems, contentHash: problems.length === 0 ? skillContentHash(content) : null };
}
