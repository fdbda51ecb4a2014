import type { ToolDefinition } from '../agent-config/index.ts';
import { MEMORY_CONTENT_MAX_BYTES } from './limits.ts';

/** The memory tools' names (reserved: a config's own tool cannot take them). */
export const MEMORY_TOOL_NAMES = { list: 'memory_list', read: 'memory_read', write: 'memory_write', remove: 'memory_delete' } as const;
export const MEMORY_TOOL_NAME_SET: ReadonlySet<string> = new Set(Object.values(MEMORY_TOOL_NAMES));

const store = { type: 'string', description: 'The store, by its name in the Memory section of your instructions' };
const path = { type: 'string', description: 'The memory path: starts with "/", for example /customers/acme.md' };
const expected = {
  type: 'string',
  description:
    'The contentSha256 of the memory as you read it: the change is refused if it changed since. Leave out to create a memory, or to overwrite without checking.',
};
const anyOutput = { type: 'object', properties: {}, required: [], additionalProperties: true } as ToolDefinition['outputSchema'];

const tool = (name: string, description: string, properties: Record<string, unknown>, required: string[]): ToolDefinition => ({
  schemaVersion: 1,
  name,
  description,
  owner: 'platform',
  approval: 'never',
  inputSchema: { type: 'object', properties, required, additionalProperties: false } as ToolDefinition['inputSchema'],
  outputSchema: anyOutput,
});

/** The memory tools as pinned tool definitions, mounted when the session attached a store. */
export const memoryToolDefinitions: readonly ToolDefinition[] = [
  tool(
    MEMORY_TOOL_NAMES.list,
    'Lists the memories of a memory store, in path order: paths, sizes and hashes, without content. With pathPrefix (ending in "/"), only those below it.',
    {
      store,
      pathPrefix: { type: 'string', description: 'Only memories below this folder, for example /customers/' },
      cursor: { type: 'string', description: 'The nextCursor of the previous answer, for the next page' },
    },
    ['store'],
  ),
  tool(MEMORY_TOOL_NAMES.read, 'Reads one memory: its content and contentSha256.', { store, path }, ['store', 'path']),
  tool(
    MEMORY_TOOL_NAMES.write,
    `Creates the memory at path, or replaces its content (at most ${MEMORY_CONTENT_MAX_BYTES} bytes of text). Every write is kept as a version.`,
    { store, path, content: { type: 'string', description: 'The whole new content' }, expectedContentSha256: expected },
    ['store', 'path', 'content'],
  ),
  tool(MEMORY_TOOL_NAMES.remove, 'Deletes the memory at path (its versions are kept).', { store, path, expectedContentSha256: expected }, ['store', 'path']),
];
