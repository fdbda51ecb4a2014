import { and, count, eq, inArray, isNull } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import {
  agents,
  eventWebhooks,
  mcpCredentialPolicies,
  mcpCredentials,
  mcpServers,
  mcpToolsets,
  modelPresets,
  modelProviders,
  projects,
  sandboxProviders,
  schedules,
  memoryStores,
  skills,
  storageProviders,
} from '../../../db/schema/index.ts';
import type { BackupFile, BackupProject } from '../../../domain/configuration-backup/format.ts';
import { restrictedEgressProblem } from '../../../domain/sandbox/provider-input.ts';
import { endpointUrlProblem, nonPublicHost } from '../../../domain/outbound/endpoint-url.ts';
import type { BackedUpName, CredentialKind } from './coverage.ts';

export type { CredentialKind };

export type RestorePlan = {
  projects: Array<{
    id: string;
    slug: string;
    name: string;
    action: 'create' | 'fill_empty_project' | 'blocked';
    existingProjectId: string | null;
    reason?: string;
  }>;
  conflicts: Array<{ resource: string; id: string; key?: string; message: string }>;
  warnings: Array<{ code: string; id: string; message: string }>;
  counts: Record<string, number>;
  requiredCredentials: Array<{
    kind: CredentialKind;
    id: string;
    key?: string;
    displayName: string;
    credentialFingerprint: string | null;
    value: 'string' | 'accessKeyPair' | 'signingSecret';
  }>;
  ready: boolean;
};

export type PlanDeps = {
  allowPrivateNetwork: boolean;
  deploymentPresetKeys: ReadonlySet<string>;
  snapshotIds: ReadonlySet<string>;
};

/**
 * What a restore of `file` into the organization would do (spec 2 "Configuration backup and
 * restore" rules 2 and 5), without changing anything. Inside the restore transaction the
 * existing projects it fills are locked, so nothing can be added to them before the insert.
 */
export async function planRestore(db: Executor, organizationId: string, file: BackupFile, deps: PlanDeps, options: { lock: boolean }): Promise<RestorePlan> {
  const conflicts: RestorePlan['conflicts'] = [];
  const warnings: RestorePlan['warnings'] = [];

  const existingProjects = await (options.lock
    ? db.select().from(projects).where(eq(projects.organizationId, organizationId)).for('update')
    : db.select().from(projects).where(eq(projects.organizationId, organizationId)));
  const bySlug = new Map(existingProjects.map((project) => [project.slug, project]));
  const planned: RestorePlan['projects'] = [];
  for (const project of file.projects) {
    const existing = bySlug.get(project.slug);
    if (!existing) {
      planned.push({ id: project.id, slug: project.slug, name: project.name, action: 'create', existingProjectId: null });
      continue;
    }
    const content = await projectContent(db, existing.id);
    if (content.length === 0) {
      planned.push({ id: project.id, slug: project.slug, name: project.name, action: 'fill_empty_project', existingProjectId: existing.id });
    } else {
      planned.push({
        id: project.id,
        slug: project.slug,
        name: project.name,
        action: 'blocked',
        existingProjectId: existing.id,
        reason: `project "${project.slug}" already has ${content.join(', ')}`,
      });
    }
  }

  // Organization-shared connections: no key may exist already (rule 2).
  const taken = async (
    table: typeof sandboxProviders | typeof storageProviders | typeof mcpServers | typeof mcpCredentials | typeof mcpCredentialPolicies,
    keys: string[],
  ) =>
    keys.length === 0
      ? new Set<string>()
      : new Set(
          (
            await db
              .select({ key: table.key })
              .from(table)
              .where(and(eq(table.organizationId, organizationId), inArray(table.key, keys)))
          ).map((row) => row.key),
        );
  const liveProviderKeys = file.modelProviders.filter((entry) => !entry.archived).map((entry) => entry.key);
  const takenProviders =
    liveProviderKeys.length === 0
      ? new Set<string>()
      : new Set(
          (
            await db
              .select({ key: modelProviders.key })
              .from(modelProviders)
              .where(and(eq(modelProviders.organizationId, organizationId), isNull(modelProviders.removedAt), inArray(modelProviders.key, liveProviderKeys)))
          ).map((row) => row.key),
        );
  const shared = [
    ['model provider', file.modelProviders.filter((entry) => !entry.archived), takenProviders],
    [
      'sandbox provider',
      file.sandboxProviders,
      await taken(
        sandboxProviders,
        file.sandboxProviders.map((entry) => entry.key),
      ),
    ],
    [
      'storage provider',
      file.storageProviders,
      await taken(
        storageProviders,
        file.storageProviders.map((entry) => entry.key),
      ),
    ],
    [
      'MCP server',
      file.mcpServers,
      await taken(
        mcpServers,
        file.mcpServers.map((entry) => entry.key),
      ),
    ],
    [
      'MCP credential',
      file.mcpCredentials,
      await taken(
        mcpCredentials,
        file.mcpCredentials.map((entry) => entry.key),
      ),
    ],
    [
      'MCP credential policy',
      file.mcpCredentialPolicies,
      await taken(
        mcpCredentialPolicies,
        file.mcpCredentialPolicies.map((entry) => entry.key),
      ),
    ],
  ] as const;
  for (const [resource, entries, keys] of shared) {
    for (const entry of entries) {
      if (keys.has(entry.key))
        conflicts.push({ resource, id: entry.id, key: entry.key, message: `A ${resource} with key "${entry.key}" already exists in this organization` });
    }
  }

  // Endpoints this server refuses block the restore (rule 5), as they would refuse creation.
  const policy = { allowPrivateNetwork: deps.allowPrivateNetwork };
  for (const server of file.mcpServers) {
    const problem = endpointUrlProblem(server.endpointUrl, policy);
    if (problem)
      conflicts.push({
        resource: 'MCP server',
        id: server.id,
        key: server.key,
        message: `MCP server "${server.key}": ${problem.replace('endpointUrl', 'its endpoint')}`,
      });
  }
  for (const provider of file.storageProviders) {
    const problem = provider.endpoint === null ? null : endpointUrlProblem(provider.endpoint, { ...policy, field: 'endpoint' });
    if (problem)
      conflicts.push({
        resource: 'storage provider',
        id: provider.id,
        key: provider.key,
        message: `Storage provider "${provider.key}": ${problem.replace(/^endpoint/, 'its endpoint')}`,
      });
  }
  for (const credentialPolicy of file.mcpCredentialPolicies) {
    for (const version of credentialPolicy.versions) {
      const problem = exactOriginHostProblem(version.exactOrigin, policy);
      if (problem)
        conflicts.push({
          resource: 'MCP credential policy',
          id: credentialPolicy.id,
          key: credentialPolicy.key,
          message: `MCP credential policy "${credentialPolicy.key}" version ${version.version}: ${problem}`,
        });
    }
  }
  for (const provider of file.sandboxProviders) {
    const problem = restrictedEgressProblem(provider.restrictedEgress, policy);
    if (problem)
      conflicts.push({ resource: 'sandbox provider', id: provider.id, key: provider.key, message: `Sandbox provider "${provider.key}": ${problem.message}` });
  }
  for (const project of file.projects) {
    for (const webhook of project.eventWebhooks) {
      const problem = endpointUrlProblem(webhook.endpointUrl, policy);
      if (problem)
        conflicts.push({
          resource: 'event webhook',
          id: webhook.id,
          message: `Event webhook "${webhook.displayName}" of project "${project.slug}": ${problem.replace('endpointUrl', 'its endpoint')}`,
        });
    }
  }

  // Warnings (rule 5).
  const backupDefault = file.storageProviders.find((entry) => entry.isDefault);
  if (backupDefault) {
    const [current] = await db
      .select({ key: storageProviders.key })
      .from(storageProviders)
      .where(and(eq(storageProviders.organizationId, organizationId), eq(storageProviders.isDefault, true)));
    if (current) {
      warnings.push({
        code: 'default_storage_provider_exists',
        id: backupDefault.id,
        message: `Storage provider "${current.key}" stays the default; the restored "${backupDefault.key}" becomes non-default`,
      });
    }
  }
  for (const project of file.projects) warnings.push(...configWarnings(project, deps));

  return {
    projects: planned,
    conflicts,
    warnings,
    counts: countEntries(file),
    requiredCredentials: requiredCredentials(file),
    ready: conflicts.length === 0 && planned.every((project) => project.action !== 'blocked'),
  };
}

/** What keeps an existing project from being filled: agents, Skills, presets, toolsets, webhooks, schedules or memory stores. */
async function projectContent(db: Executor, projectId: string): Promise<string[]> {
  const tables = [
    ['agents', agents],
    ['Skills', skills],
    ['model presets', modelPresets],
    ['MCP toolsets', mcpToolsets],
    ['event webhooks', eventWebhooks],
    ['schedules', schedules],
    ['memory stores', memoryStores],
  ] as const;
  const found: string[] = [];
  for (const [name, table] of tables) {
    const [row] = await db.select({ total: count() }).from(table).where(eq(table.projectId, projectId));
    if ((row?.total ?? 0) > 0) found.push(name);
  }
  return found;
}

function configWarnings(project: BackupProject, deps: PlanDeps): RestorePlan['warnings'] {
  const warnings: RestorePlan['warnings'] = [];
  const presetKeys = new Set(project.modelPresets.map((preset) => preset.key));
  for (const agent of project.agents) {
    for (const version of agent.versions) {
      const preset = version.config.modelPreset;
      if (typeof preset === 'string' && !presetKeys.has(preset) && !deps.deploymentPresetKeys.has(preset)) {
        warnings.push({
          code: 'model_preset_unavailable',
          id: version.id,
          message: `Agent "${agent.key}" version ${version.version} uses model preset "${preset}", which is neither in the backup nor a deployment preset here`,
        });
      }
      const sandbox = version.config.sandbox as { snapshotId?: unknown } | undefined;
      if (typeof sandbox?.snapshotId === 'string' && !deps.snapshotIds.has(sandbox.snapshotId)) {
        warnings.push({
          code: 'sandbox_snapshot_unknown',
          id: version.id,
          message: `Agent "${agent.key}" version ${version.version} uses sandbox snapshot ${sandbox.snapshotId}, which belongs to the original account (unknown here)`,
        });
      }
    }
  }
  return warnings;
}

/** The secrets a restore needs: one per live credential-bearing connection (archived and revoked need none). */
function requiredCredentials(file: BackupFile): RestorePlan['requiredCredentials'] {
  const required: RestorePlan['requiredCredentials'] = [];
  for (const entry of file.modelProviders) {
    if (!entry.archived)
      required.push({
        kind: 'modelProviders',
        id: entry.id,
        key: entry.key,
        displayName: entry.displayName,
        credentialFingerprint: entry.credentialFingerprint,
        value: 'string',
      });
  }
  for (const entry of file.sandboxProviders) {
    if (entry.credentialFingerprint)
      required.push({
        kind: 'sandboxProviders',
        id: entry.id,
        key: entry.key,
        displayName: entry.displayName,
        credentialFingerprint: entry.credentialFingerprint,
        value: 'string',
      });
  }
  for (const entry of file.storageProviders) {
    if (entry.credentialFingerprint)
      required.push({
        kind: 'storageProviders',
        id: entry.id,
        key: entry.key,
        displayName: entry.displayName,
        credentialFingerprint: entry.credentialFingerprint,
        value: 'accessKeyPair',
      });
  }
  for (const entry of file.mcpCredentials) {
    if (!entry.revoked)
      required.push({
        kind: 'mcpCredentials',
        id: entry.id,
        key: entry.key,
        displayName: entry.displayName,
        credentialFingerprint: entry.credentialFingerprint,
        value: 'string',
      });
  }
  for (const project of file.projects) {
    for (const webhook of project.eventWebhooks) {
      required.push({
        kind: 'eventWebhooks',
        id: webhook.id,
        displayName: webhook.displayName,
        credentialFingerprint: webhook.credentialFingerprint,
        value: 'signingSecret',
      });
    }
  }
  return required;
}

/** One count per backed-up table, by its name in coverage.ts (a type error when one is missing). */
function countEntries(file: BackupFile): Record<BackedUpName, number> {
  const sum = (pick: (project: BackupProject) => number) => file.projects.reduce((total, project) => total + pick(project), 0);
  return {
    projects: file.projects.length,
    modelProviders: file.modelProviders.length,
    sandboxProviders: file.sandboxProviders.length,
    storageProviders: file.storageProviders.length,
    mcpServers: file.mcpServers.length,
    mcpServerVersions: file.mcpServers.reduce((total, server) => total + server.versions.length, 0),
    mcpCredentials: file.mcpCredentials.length,
    mcpCredentialPolicies: file.mcpCredentialPolicies.length,
    mcpCredentialPolicyVersions: file.mcpCredentialPolicies.reduce((total, policy) => total + policy.versions.length, 0),
    modelPresets: sum((project) => project.modelPresets.length),
    skills: sum((project) => project.skills.length),
    skillVersions: sum((project) => project.skills.reduce((total, skill) => total + skill.versions.length, 0)),
    mcpToolsets: sum((project) => project.mcpToolsets.length),
    mcpToolsetVersions: sum((project) => project.mcpToolsets.reduce((total, toolset) => total + toolset.versions.length, 0)),
    agents: sum((project) => project.agents.length),
    agentVersions: sum((project) => project.agents.reduce((total, agent) => total + agent.versions.length, 0)),
    eventWebhooks: sum((project) => project.eventWebhooks.length),
    schedules: sum((project) => project.schedules?.length ?? 0),
    memoryStores: sum((project) => project.memoryStores?.length ?? 0),
  };
}

/** A credential policy's origin names a host the server refuses (as creation would), or null. */
function exactOriginHostProblem(exactOrigin: string, policy: { allowPrivateNetwork: boolean }): string | null {
  let hostname: string;
  try {
    hostname = new URL(exactOrigin).hostname;
  } catch {
    return 'its exactOrigin is not an origin';
  }
  const problem = nonPublicHost(hostname, policy);
  return problem ? `its exactOrigin must name a public host, not ${problem}` : null;
}
