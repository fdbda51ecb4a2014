import { canonicalJson } from '../canonical-json.ts';
import type { McpToolSnapshotEntry } from './types.ts';

/**
 * A discovered tool list as the snapshot stores it: name, description (null when absent) and
 * input schema exactly as given, sorted by name so that the order a server lists tools in does
 * not make a new version. Returns a problem when the list breaks a rule (duplicate or empty
 * names, a schema that is not an object).
 */
export function toToolSnapshot(
  tools: ReadonlyArray<{ name: unknown; description?: unknown; inputSchema?: unknown }>,
): { tools: McpToolSnapshotEntry[] } | { problem: string } {
  const seen = new Set<string>();
  const snapshot: McpToolSnapshotEntry[] = [];
  for (const tool of tools) {
    if (typeof tool.name !== 'string' || tool.name.length === 0 || tool.name.length > 200)
      return { problem: 'the server listed a tool without a valid name (1-200 characters)' };
    if (seen.has(tool.name)) return { problem: `the server listed the tool "${tool.name}" twice` };
    seen.add(tool.name);
    const schema = tool.inputSchema;
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return { problem: `the tool "${tool.name}" has no input schema object` };
    snapshot.push({
      name: tool.name,
      description: typeof tool.description === 'string' ? tool.description : null,
      inputSchema: schema as Record<string, unknown>,
    });
  }
  snapshot.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { tools: snapshot };
}

/** The text whose SHA-256 identifies a snapshot's tool metadata. */
export const toolSnapshotText = (tools: readonly McpToolSnapshotEntry[]) => canonicalJson(tools);
