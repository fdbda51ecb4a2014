import type { agents, agentVersions } from '../../db/schema/index.ts';

type AgentRow = typeof agents.$inferSelect;
type VersionRow = typeof agentVersions.$inferSelect;

export type PublicAgentVersion = {
  organizationId: string;
  projectId: string;
  id: string;
  agentDefinitionId: string;
  version: number;
  config: Record<string, unknown>;
  contentHash: string;
  createdByPrincipalId: string | null;
  createdAt: string;
};

export type PublicAgent = {
  organizationId: string;
  projectId: string;
  id: string;
  key: string;
  name: string;
  description: string;
  latestVersionId: string;
  version: number;
  model: string;
  status: 'published';
  createdAt: string;
  updatedAt: string;
  sandbox: unknown;
};

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
