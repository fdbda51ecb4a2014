// The verbs and read models of access/members/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { addMemberByEmail } from './add-by-email.ts';
export { listMembers } from './read.ts';
export { removeProjectAccess } from './remove-project-access.ts';
export { removeMember } from './remove.ts';
export { updateMember } from './update.ts';
export { upsertMember } from './upsert.ts';
