import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { sandboxProviders } from '../../../db/schema/index.ts';
import type { SandboxProviderFact } from '../../../domain/agent-config/index.ts';
import type { Snapshot } from '../../../domain/sandbox/snapshot-registry.ts';

/**
 * Publication facts of the named sandbox connections: with the local driver every registered
 * snapshot is visible to every connection, so "active on the connection" is the snapshot's state.
 */
export async function loadSandboxProviderFacts(
  db: Executor,
  input: { organizationId: string; keys: string[]; snapshots: readonly Snapshot[] },
): Promise<Map<string, SandboxProviderFact>> {
  const facts = new Map<string, SandboxProviderFact>();
  if (input.keys.length === 0) return facts;
  const rows = await db
    .select({ key: sandboxProviders.key, restrictedEgress: sandboxProviders.restrictedEgress })
    .from(sandboxProviders)
    .where(and(eq(sandboxProviders.organizationId, input.organizationId), inArray(sandboxProviders.key, input.keys)));
  const activeSnapshotIds = new Set(input.snapshots.filter((snapshot) => snapshot.state === 'active').map((snapshot) => snapshot.id.toLowerCase()));
  for (const row of rows) {
    const { allowedDomains, allowedCidrs } = row.restrictedEgress;
    facts.set(row.key, { key: row.key, activeSnapshotIds, allowlistEmpty: allowedDomains.length === 0 && allowedCidrs.length === 0 });
  }
  return facts;
}
