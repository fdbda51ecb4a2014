// The verbs and read models of runtime/sessions/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { createSession } from './create.ts';
export { archiveSession, deleteSession } from './end.ts';
export { forkSession } from './fork.ts';
export { getSession } from './get.ts';
export { listSessions } from './list.ts';
export { updateSession } from './update.ts';
