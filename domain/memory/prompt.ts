import type { AttachedMemoryStore } from './attachments.ts';
import { MEMORY_TOOL_NAMES } from './tools.ts';

/**
 * The memory section of a run's instructions (docs/decisions/memory-stores.md): which stores the
 * session attached, what each is for, and how to use them. Empty without stores, so a session
 * without memory reads exactly the prompt it read before memory existed.
 */
export function renderMemoryInstructions(stores: readonly AttachedMemoryStore[], options: { sandboxed: boolean } = { sandboxed: false }): string {
  if (stores.length === 0) return '';
  const { list, read, write, remove } = MEMORY_TOOL_NAMES;
  return [
    '',
    '',
    '## Memory',
    'Memory stores keep what you learn beyond this session: other sessions, later, read what you write there. ' +
      'Before a task, look for what is already known; when you learn something that will matter again (a fact, a decision, a preference, a mistake to avoid), write it down. ' +
      'Keep each memory short and about one subject, under a path that says what it is (for example `/customers/acme.md`); update a memory rather than adding a near copy, and never store secrets.',
    `Use \`${list}\` to see the paths of a store, \`${read}\` to read one, \`${write}\` to create or replace one and \`${remove}\` to delete one. ` +
      `To change a memory you have read, pass its \`contentSha256\` as \`expectedContentSha256\`: if someone changed it since, the write is refused and nothing is lost; read it again and merge.` +
      (options.sandboxed
        ? ' In the sandbox each store is also a directory, mounted for every command (`bash` and the file tools): files you create, change or delete there are written back when the command ends, each checked against what the command was shown; what could not be written is listed in the answer under `memory.notWritten`.'
        : ''),
    ...stores.map((store) => {
      const head = `- \`${store.mount}\` (${store.access === 'read_only' ? 'read-only' : 'read and write'}${options.sandboxed ? `, ${store.mountPath}` : ''}): ${store.name}`;
      const description = store.description ? ` — ${store.description}` : '';
      const guidance = store.instructions ? `\n  ${store.instructions.replace(/\n/g, '\n  ')}` : '';
      return head + description + guidance;
    }),
  ].join('\n');
}
