import type * as v from 'valibot';
import type { PublicAgentShape, PublicAgentVersionShape } from '../../../domain/public-shapes/agents.ts';
import type { agents, agentVersions } from '../../../db/schema/index.ts';

type AgentRow = typeof agents.$inferSelect;
type VersionRow = typeof agentVersions.$inferSelect;

export type PublicAgentVersion = v.InferOutput<typeof PublicAgentVersionShape>;
export type PublicAgent = v.InferOutput<typeof PublicAgentShape>;

export const toAgentVersionResponse = (row: VersionRow): PublicAgentVersion => ({
  organizationId: row.organizationId,
  projectId: row.projectId,
  id: row.id,
  agentDefinitionId: row.agentId,
  version: row.version,
  config: row.config,
  contentHash: row.contentHash,
  createdByPrincipalId: row.createdByPrincipalId,
  createdAt: row.createdAt.toISOString(),
});

/** The agent object of spec 1; `model` and `sandbox` come from the latest version. */
export const toAgentResponse = (row: AgentRow, latest: VersionRow): PublicAgent => ({
  organizationId: row.organizationId,
  projectId: row.projectId,
  id: row.id,
  key: row.key,
  name: row.name,
  description: row.description ?? '',
  latestVersionId: latest.id,
  version: latest.version,
  model: String(latest.config.modelPreset),
  status: 'published',
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  sandbox: latest.config.sandbox ?? null,
});
