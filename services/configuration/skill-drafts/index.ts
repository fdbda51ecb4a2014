// The verbs and read models of configuration/skill-drafts/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createSkillDraftDirectory } from './create-directory.ts';
export { createSkillDraft } from './create.ts';
export { deleteSkillDraftEntry } from './delete-entry.ts';
export { discardSkillDraft } from './discard.ts';
export { getSkillDraft } from './get.ts';
export { listSkillDrafts } from './list.ts';
export { publishSkillDraft } from './publish.ts';
export { putSkillDraftFile } from './put-file.ts';
export { updateSkillDraft } from './update.ts';
export { validateSkillDraft } from './validate.ts';
