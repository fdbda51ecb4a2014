import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { findDraft, listEntries } from './load.ts';
import { toSkillDraftResponse, type PublicSkillDraft } from './public.ts';

/** A draft of the project with its metadata, instructions, folders and file bytes. */
export async function getSkillDraft({ ctx, input }: { ctx: ServiceContext; input: { draftId: string } }): Promise<PublicSkillDraft> {
  const actor = requireActor(ctx);
  const draft = await findDraft(ctx, actor, input.draftId);
  return toSkillDraftResponse(draft, await listEntries(ctx, draft));
}
