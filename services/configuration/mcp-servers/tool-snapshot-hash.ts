import { createHash } from 'node:crypto';
import { toolSnapshotText } from '../../../domain/mcp/tool-snapshot.ts';
import type { McpToolSnapshotEntry } from '../../../domain/mcp/types.ts';

/** SHA-256 of a snapshot's canonical text: equal metadata, equal hash. */
export const toolSnapshotHash = (tools: readonly McpToolSnapshotEntry[]) => createHash('sha256').update(toolSnapshotText(tools), 'utf8').digest('hex');
