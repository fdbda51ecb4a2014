import { eq } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '../../../db/client.ts';
import { organizations } from '../../../db/schema/index.ts';
import { mapConfigReferences, type ConfigReferenceKind } from '../../../domain/configuration-backup/config-references.ts';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, type BackupFile } from '../../../domain/configuration-backup/format.ts';
import { retentionResponse } from '../../access/projects/index.ts';
import type { ScheduleMemoryStore } from '../../../domain/schedules/inputs.ts';
import { publicProjectBudget } from '../../../domain/usage/budget.ts';
import { assertOrganizationAdministrator } from '../../access/projects/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { assertOwnOrganization } from './authorize.ts';
import { BACKED_UP, BACKED_UP_NAMES, type BackedUpName } from './coverage.ts';

type Dated = { createdAt: Date };

/**
 * `GET /organizations/{id}/configuration-backup` (spec 1 "Configuration backup file"): the
 * organization's configuration, without a secret, member, session, run or event. The output is
 * deterministic: entries are ordered by creation time, then key, then content, and numbered in
 * that order, so two backups of an unchanged organization are byte-identical (and a restored
 * copy backs up to the same file).
 */
export async function exportConfiguration({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { organizationId: string };
}): Promise<{ file: BackupFile; fileName: string }> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  assertOwnOrganization(actor, input.organizationId);
  const rows = await readOrganization(ctx.db, input.organizationId);
  const ids = new FileIds();

  const modelProviders = ordered(rows.modelProviders, (row) => row.key).map((row) => ({
    id: ids.assign('modelProvider', row.id),
    key: row.key,
    displayName: row.displayName,
    providerType: row.providerType,
    credentialFingerprint: row.removedAt ? null : row.credentialFingerprint,
    archived: row.removedAt !== null,
    createdAt: row.createdAt.toISOString(),
  }));
  const sandboxProviders = ordered(rows.sandboxProviders, (row) => row.key).map((row) => ({
    id: ids.assign('sandboxProvider', row.id),
    key: row.key,
    displayName: row.displayName,
    providerType: row.providerType,
    target: row.target,
    restrictedEgress: { allowedDomains: row.restrictedEgress.allowedDomains, allowedCidrs: row.restrictedEgress.allowedCidrs },
    credentialFingerprint: row.credentialFingerprint,
    createdAt: row.createdAt.toISOString(),
  }));
  const storageProviders = ordered(rows.storageProviders, (row) => row.key).map((row) => ({
    id: ids.assign('storageProvider', row.id),
    key: row.key,
    displayName: row.displayName,
    providerType: row.providerType,
    endpoint: row.endpoint,
    region: row.region,
    bucket: row.bucket,
    prefix: row.prefix,
    forcePathStyle: row.forcePathStyle,
    isDefault: row.isDefault,
    credentialFingerprint: row.credentialFingerprint,
    createdAt: row.createdAt.toISOString(),
  }));
  const mcpServers = ordered(rows.mcpServers, (row) => row.key).map((row) => {
    const id = ids.assign('mcpServer', row.id);
    return {
      id,
      key: row.key,
      displayName: row.displayName,
      endpointUrl: row.endpointUrl,
      transport: row.transport,
      createdAt: row.createdAt.toISOString(),
      versions: byVersion(rows.mcpServerVersions.filter((version) => version.serverId === row.id)).map((version) => ({
        id: ids.version(id, version.id, version.version, 'mcpServerVersion'),
        version: version.version,
        tools: version.tools as Record<string, unknown>[],
        discoveredAt: version.discoveredAt?.toISOString() ?? null,
        createdAt: version.createdAt.toISOString(),
      })),
    };
  });
  const mcpCredentials = ordered(rows.mcpCredentials, (row) => row.key).map((row) => ({
    id: ids.assign('mcpCredential', row.id),
    key: row.key,
    displayName: row.displayName,
    kind: row.kind,
    headerName: row.headerName,
    credentialFingerprint: row.revokedAt ? null : row.credentialFingerprint,
    revoked: row.revokedAt !== null,
    createdAt: row.createdAt.toISOString(),
  }));
  const mcpCredentialPolicies = ordered(rows.mcpCredentialPolicies, (row) => row.key).map((row) => {
    const id = ids.assign('mcpCredentialPolicy', row.id);
    return {
      id,
      key: row.key,
      createdAt: row.createdAt.toISOString(),
      versions: byVersion(rows.mcpCredentialPolicyVersions.filter((version) => version.policyId === row.id)).map((version) => ({
        id: ids.version(id, version.id, version.version, 'policyVersion'),
        version: version.version,
        displayName: version.displayName,
        credentialId: ids.of('mcpCredential', version.credentialId),
        exactOrigin: version.exactOrigin,
        pathPrefix: version.pathPrefix,
        timeoutMs: version.timeoutMs,
        maximumResponseBytes: version.maximumResponseBytes,
        createdAt: version.createdAt.toISOString(),
      })),
    };
  });

  // Project entries first get their ids in full (configs may point at any later entry of the
  // project), then are written out.
  const projectEntries = [...rows.projects]
    .sort((a, b) => compare(a.slug, b.slug))
    .map((project) => {
      const inProject = <T extends { projectId: string }>(list: T[]) => list.filter((row) => row.projectId === project.id);
      const presets = ordered(inProject(rows.modelPresets), (row) => row.key);
      const skillRows = ordered(inProject(rows.skills), (row) => row.key);
      const toolsets = ordered(inProject(rows.mcpToolsets), (row) => row.key);
      const agentRows = ordered(inProject(rows.agents), (row) => row.key);
      const webhooks = ordered(inProject(rows.eventWebhooks), (row) => `${row.endpointUrl} ${row.displayName}`);
      // Live schedules that open sessions (a session target refers to a session, which is not backed up).
      const scheduleRows = ordered(
        inProject(rows.schedules).filter((row) => row.deletedAt === null && row.target === 'new_session'),
        (row) => row.name ?? '',
      );
      const storeRows = ordered(inProject(rows.memoryStores), (row) => row.name);
      const projectId = ids.assign('project', project.id);
      for (const row of presets) ids.assign('modelPreset', row.id);
      for (const row of skillRows) {
        const id = ids.assign('skill', row.id);
        for (const version of rows.skillVersions) if (version.skillId === row.id) ids.version(id, version.id, version.version, 'skillVersion');
      }
      for (const row of toolsets) {
        const id = ids.assign('mcpToolset', row.id);
        for (const version of rows.mcpToolsetVersions) if (version.toolsetId === row.id) ids.version(id, version.id, version.version, 'toolsetVersion');
      }
      for (const row of agentRows) {
        const id = ids.assign('agent', row.id);
        for (const version of rows.agentVersions) if (version.agentId === row.id) ids.version(id, version.id, version.version, 'agentVersion');
      }
      for (const row of webhooks) ids.assign('eventWebhook', row.id);
      for (const row of scheduleRows) ids.assign('schedule', row.id);
      for (const row of storeRows) ids.assign('memoryStore', row.id);
      return { project, projectId, presets, skillRows, toolsets, agentRows, webhooks, scheduleRows, storeRows };
    });

  const projectsOut = projectEntries.map(({ project, projectId, presets, skillRows, toolsets, agentRows, webhooks, scheduleRows, storeRows }) => ({
    id: projectId,
    slug: project.slug,
    name: project.name,
    // Only a project with an override carries `retention`, so other files read as before.
    ...(project.sessionRetentionMinutes !== null || project.eventRetentionMinutes !== null
      ? { retention: retentionResponse({ sessionsMinutes: project.sessionRetentionMinutes, eventsMinutes: project.eventRetentionMinutes }) }
      : {}),
    ...(project.budgetMonthlyMaxCostNanos !== null || project.budgetMonthlyMaxTokens !== null
      ? { budget: publicProjectBudget({ maxCostNanos: project.budgetMonthlyMaxCostNanos, maxTokens: project.budgetMonthlyMaxTokens })! }
      : {}),
    modelPresets: presets.map((row) => ({
      id: ids.of('modelPreset', row.id),
      key: row.key,
      displayName: row.displayName,
      providerId: ids.of('modelProvider', row.providerId),
      model: row.model,
      routing: row.routing,
      settings: row.settings ?? null,
      ...(row.prices ? { prices: row.prices } : {}),
      ...(row.contextWindow !== null ? { contextWindow: row.contextWindow } : {}),
      archived: row.archivedAt !== null,
      createdAt: row.createdAt.toISOString(),
    })),
    skills: skillRows.map((row) => ({
      id: ids.of('skill', row.id),
      key: row.key,
      displayName: row.displayName,
      enabled: row.enabled,
      removed: row.deletedAt !== null,
      createdAt: row.createdAt.toISOString(),
      versions: byVersion(rows.skillVersions.filter((version) => version.skillId === row.id)).map((version) => ({
        id: ids.of('skillVersion', version.id),
        version: version.version,
        name: version.name,
        description: version.description,
        instructions: version.instructions,
        license: version.license,
        compatibility: version.compatibility,
        metadata: version.metadata,
        allowedTools: version.allowedTools,
        files: version.files.map((file) => ({ path: file.path, contentType: file.contentType, dataBase64: file.dataBase64 })),
        status: version.status,
        createdAt: version.createdAt.toISOString(),
      })),
    })),
    mcpToolsets: toolsets.map((row) => ({
      id: ids.of('mcpToolset', row.id),
      key: row.key,
      createdAt: row.createdAt.toISOString(),
      versions: byVersion(rows.mcpToolsetVersions.filter((version) => version.toolsetId === row.id)).map((version) => ({
        id: ids.of('toolsetVersion', version.id),
        version: version.version,
        displayName: version.displayName,
        serverVersionId: ids.of('mcpServerVersion', version.serverVersionId),
        tools: version.tools.map((tool) => ({ remoteToolName: tool.remoteToolName, approval: tool.approval })),
        createdAt: version.createdAt.toISOString(),
      })),
    })),
    agents: agentRows.map((row) => ({
      id: ids.of('agent', row.id),
      key: row.key,
      name: row.name,
      description: row.description ?? '',
      archived: row.deletedAt !== null,
      createdAt: row.createdAt.toISOString(),
      versions: byVersion(rows.agentVersions.filter((version) => version.agentId === row.id)).map((version) => ({
        id: ids.of('agentVersion', version.id),
        version: version.version,
        config: mapConfigReferences(version.config, (kind, id) => ids.of(kind, id)),
        createdAt: version.createdAt.toISOString(),
      })),
    })),
    eventWebhooks: webhooks.map((row) => ({
      id: ids.of('eventWebhook', row.id),
      displayName: row.displayName,
      endpointUrl: row.endpointUrl,
      eventKinds: row.eventKinds,
      includeMessageContent: row.includeMessageContent,
      enabled: row.enabled,
      credentialFingerprint: row.credentialFingerprint,
      createdAt: row.createdAt.toISOString(),
    })),
    // Only a project with schedules carries `schedules`, so other files read as before.
    ...(scheduleRows.length > 0
      ? {
          schedules: scheduleRows.map((row) => ({
            id: ids.of('schedule', row.id),
            name: row.name,
            agentId: ids.of('agent', row.agentId),
            agentVersionId: row.agentVersionId === null ? null : ids.of('agentVersion', row.agentVersionId),
            cron: row.cron,
            intervalSeconds: row.intervalSeconds,
            timeZone: row.timeZone,
            message: row.message,
            overlap: row.overlap,
            catchupWindowSeconds: row.catchupWindowSeconds,
            ...scheduleMemoryStores(row.memoryStores, ids),
            createdAt: row.createdAt.toISOString(),
          })),
        }
      : {}),
    // Store definitions only: memories are data (docs/decisions/memory-stores.md).
    ...(storeRows.length > 0
      ? {
          memoryStores: storeRows.map((row) => ({
            id: ids.of('memoryStore', row.id),
            name: row.name,
            description: row.description,
            metadata: row.metadata,
            archived: row.archivedAt !== null,
            createdAt: row.createdAt.toISOString(),
          })),
        }
      : {}),
  }));

  const [organization] = await ctx.db.select({ slug: organizations.slug }).from(organizations).where(eq(organizations.id, input.organizationId));
  const fileName = `svc-configuration-${organization!.slug}-${ctx.clock.now().toISOString().slice(0, 10)}.json`;
  const file: BackupFile = {
    format: BACKUP_FORMAT,
    formatVersion: BACKUP_FORMAT_VERSION,
    modelProviders,
    sandboxProviders,
    storageProviders,
    mcpServers,
    mcpCredentials,
    mcpCredentialPolicies,
    projects: projectsOut,
  };
  return { file, fileName };
}

type IdKind =
  | ConfigReferenceKind
  | 'modelProvider'
  | 'sandboxProvider'
  | 'storageProvider'
  | 'mcpServer'
  | 'mcpServerVersion'
  | 'mcpCredential'
  | 'mcpCredentialPolicy'
  | 'project'
  | 'modelPreset'
  | 'skill'
  | 'mcpToolset'
  | 'agent'
  | 'eventWebhook'
  | 'schedule'
  | 'memoryStore';

/** File-local ids: `<kind>-<n>` in output order, versions `<parent>.v<version>`. */
class FileIds {
  private readonly byRow = new Map<string, string>();
  private readonly counters = new Map<string, number>();
  assign(kind: IdKind, rowId: string): string {
    const n = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, n);
    const id = `${kind}-${n}`;
    this.byRow.set(`${kind}:${rowId}`, id);
    return id;
  }
  version(parent: string, rowId: string, version: number, kind: IdKind): string {
    const id = `${parent}.v${version}`;
    this.byRow.set(`${kind}:${rowId}`, id);
    return id;
  }
  /** The file id of a row, or null when the file carries no such row (one deleted since it was named). */
  find(kind: IdKind, rowId: string): string | null {
    return this.byRow.get(`${kind}:${rowId}`) ?? null;
  }
  of(kind: IdKind, rowId: string): string {
    const id = this.byRow.get(`${kind}:${rowId}`);
    // Every reference was checked when it was stored; one that leads nowhere is a bug, not input.
    if (!id) throw new Error(`The backup found a ${kind} reference to a row outside the organization`);
    return id;
  }
}

/**
 * A schedule's memory stores by the file ids of the stores backed up with it; only a schedule
 * that attaches some carries `memoryStores`, so other files read as before. A store deleted since
 * the schedule named it is left out: nothing in the file could stand for it (its firings fail
 * until the schedule is changed; the restored one attaches the stores that still exist).
 */
function scheduleMemoryStores(stores: ReadonlyArray<ScheduleMemoryStore>, ids: FileIds): { memoryStores?: ScheduleMemoryStore[] } {
  const kept = stores.flatMap((store) => {
    const storeId = ids.find('memoryStore', store.storeId);
    return storeId ? [{ storeId, access: store.access, instructions: store.instructions }] : [];
  });
  return kept.length > 0 ? { memoryStores: kept } : {};
}

/** Creation time, then key, then content: an order that survives a restore (ids do not). */
function ordered<T extends Dated & { id: string }>(rows: T[], key: (row: T) => string): T[] {
  const content = (row: T) => JSON.stringify({ ...row, id: undefined });
  return [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || compare(key(a), key(b)) || compare(content(a), content(b)));
}

const byVersion = <T extends { version: number }>(rows: T[]) => [...rows].sort((a, b) => a.version - b.version);
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Every backed-up table's rows of the organization, by its name in coverage.ts. */
type OrganizationRows = { [K in BackedUpName]: Array<(typeof BACKED_UP)[K]['table']['$inferSelect']> };

async function readOrganization(db: Executor, organizationId: string): Promise<OrganizationRows> {
  const lists = await Promise.all(
    BACKED_UP_NAMES.map((name) => {
      // Every backed-up table has an organization_id (coverage.test.ts).
      const table = BACKED_UP[name].table as PgTable & { organizationId: AnyPgColumn };
      return db.select().from(table).where(eq(table.organizationId, organizationId));
    }),
  );
  return Object.fromEntries(BACKED_UP_NAMES.map((name, index) => [name, lists[index]])) as OrganizationRows;
}
