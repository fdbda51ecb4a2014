import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { agents, agentVersions } from '../../../db/schema/index.ts';
import type { DelegateVersionFact, SandboxPolicyFact } from '../../../domain/agent-config/facts.ts';

const noSandbox: SandboxPolicyFact = { enabled: false, provider: null, snapshotId: null, network: 'none' };

/** Facts about delegate versions in the organization (other projects included, so they can be refused). */
export async function loadDelegateFacts(db: Executor, input: { organizationId: string; ids: string[] }): Promise<Map<string, DelegateVersionFact>> {
  const facts = new Map<string, DelegateVersionFact>();
  if (input.ids.length === 0) return facts;
  const rows = await db
    .select({ version: agentVersions, agent: agents })
    .from(agentVersions)
    .innerJoin(agents, eq(agents.id, agentVersions.agentId))
    .where(and(eq(agentVersions.organizationId, input.organizationId), inArray(agentVersions.id, input.ids)));
  for (const { version, agent } of rows) {
    const sandbox = (version.config.sandbox as Partial<SandboxPolicyFact> | undefined) ?? noSandbox;
    facts.set(version.id, {
      agentVersionId: version.id,
      agentId: agent.id,
      agentKey: agent.key,
      projectId: version.projectId,
      agentArchived: agent.deletedAt !== null,
      sandbox: {
        enabled: Boolean(sandbox.enabled),
        provider: sandbox.provider ?? null,
        snapshotId: sandbox.snapshotId ?? null,
        network: sandbox.network ?? 'none',
      },
    });
  }
  return facts;
}
