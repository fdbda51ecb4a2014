// The verbs and read models of configuration/memory-stores/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { archiveMemoryStore } from './archive-store.ts';
export { answerMemoryTool, type MemoryToolAnswer } from './answer-memory-tool.ts';
export { attachSessionMemoryStores } from './attach-to-session.ts';
export { createMemory } from './create-memory.ts';
export { createMemoryStore } from './create-store.ts';
export { deleteMemory } from './delete-memory.ts';
export { deleteMemoryStore } from './delete-store.ts';
export { getMemory } from './get-memory.ts';
export { getMemoryStore } from './get-store.ts';
export { getMemoryVersion } from './get-version.ts';
export { listMemories, type MemoryListItem } from './list-memories.ts';
export { listMemoryStores } from './list-stores.ts';
export { listMemoryVersions } from './list-versions.ts';
export { redactMemoryVersion } from './redact-version.ts';
export { sessionMemoryWrites } from './session-writes.ts';
export { updateMemory } from './update-memory.ts';
export { updateMemoryStore } from './update-store.ts';
export type { PublicMemory, PublicMemoryStore, PublicMemoryVersion } from './public.ts';
