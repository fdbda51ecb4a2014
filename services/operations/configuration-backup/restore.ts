import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import * as v from 'valibot';
import type { RestoreResultShape } from '../../../domain/public-shapes/configuration-backup.ts';
import type { PgTable } from 'drizzle-orm/pg-core';
import {
  agents,
  agentVersions,
  eventWebhooks,
  mcpToolsets,
  mcpToolsetVersions,
  modelPresets,
  projects,
  schedules,
  memoryStores,
  skills,
  skillVersions,
  storageProviders,
} from '../../../db/schema/index.ts';
import { canonicalAgentConfig, parseAgentConfig } from '../../../domain/agent-config/index.ts';
import { readBackupFile } from '../../../domain/configuration-backup/check.ts';
import { mapConfigReferences } from '../../../domain/configuration-backup/config-references.ts';
import type { BackupFile } from '../../../domain/configuration-backup/format.ts';
import { ConflictError, ValidationError } from '../../../domain/errors.ts';
import { ProviderApiKey } from '../../../domain/model-catalog/provider-input.ts';
import { parseAt } from '../../../domain/model-presets/parse-at.ts';
import { StorageCredentialInput } from '../../../domain/storage/provider-input.ts';
import { signingSecretProblem } from '../../../domain/webhooks/signing-secret.ts';
import { McpSecret } from '../../../domain/mcp/inputs.ts';
import { CreateMemoryStoreInput } from '../../../domain/memory/inputs.ts';
import { CreateScheduleInput, storedMemoryStores } from '../../../domain/schedules/inputs.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { provisionMember } from '../../access/auth/index.ts';
import { sealCredential, type CredentialKeyring } from '../../kernel/credentials/index.ts';
import { webhookCredentialAad } from '../../configuration/event-webhooks/index.ts';
import { latestProjectPositions } from '../../kernel/events/index.ts';
import { mcpCredentialAad } from '../../configuration/mcp-credentials/index.ts';
import { toolSnapshotHash } from '../../configuration/mcp-servers/index.ts';
import { providerCredentialAad } from '../../configuration/model-providers/index.ts';
import { assertOrganizationAdministrator } from '../../access/projects/index.ts';
import { retentionMinutes } from '../../../domain/retention.ts';
import { ProjectBudgetInput, storedProjectBudget } from '../../../domain/usage/budget.ts';
import { sandboxCredentialAad } from '../../configuration/sandbox-providers/index.ts';
import { skillContentHash } from '../../configuration/skills/index.ts';
import { assertPublishableContent } from '../../configuration/skills/index.ts';
import { sealStorageCredential } from '../../configuration/storage-providers/index.ts';
import type { ScheduleDeps } from '../../kernel/schedule-backend.ts';
import { syncAfterCommit } from '../schedules/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { assertOwnOrganization } from './authorize.ts';
import { BACKED_UP, BACKED_UP_NAMES } from './coverage.ts';
import { planRestore, type CredentialKind, type PlanDeps, type RestorePlan } from './plan.ts';

/** `schedules`: how restored schedules get their (paused) Temporal Schedules after the commit; absent: the worker's reconciler creates them. */
export type RestoreDeps = PlanDeps & { keyring: CredentialKeyring; schedules?: ScheduleDeps };

export type RestoreResult = v.InferOutput<typeof RestoreResultShape>;

const CredentialsInput = v.strictObject({
  modelProviders: v.optional(v.record(v.string(), v.string()), {}),
  sandboxProviders: v.optional(v.record(v.string(), v.string()), {}),
  storageProviders: v.optional(v.record(v.string(), v.unknown()), {}),
  mcpCredentials: v.optional(v.record(v.string(), v.string()), {}),
  eventWebhooks: v.optional(v.record(v.string(), v.string()), {}),
});
type Credentials = v.InferOutput<typeof CredentialsInput>;

/**
 * `POST /organizations/{id}/configuration-restore` (spec 2 rules 1-4): checks the file and the
 * credentials (each required one given, no other), then in one transaction plans again under
 * lock and writes every row with new ids, references inside configs rewritten, content hashes
 * recomputed, version numbers, lifecycle states and flags kept, secrets sealed, rows attributed
 * to the restoring principal. Rows go in table by table as multi-row inserts.
 */
export async function restoreConfiguration({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: RestoreDeps;
  input: { organizationId: string; backup: unknown; credentials: unknown };
}): Promise<RestoreResult> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  assertOwnOrganization(actor, input.organizationId);
  const file = readBackupFile(input.backup);
  const credentials = readCredentials(input.credentials);

  return withTransaction(ctx, async (tx) => {
    const plan = await planRestore(tx.db, actor.organizationId, file, deps, { lock: true });
    checkCredentials(plan, credentials);
    if (!plan.ready) {
      const reasons = [
        ...plan.conflicts.map((conflict) => conflict.message),
        ...plan.projects.filter((project) => project.action === 'blocked').map((project) => project.reason!),
      ];
      throw new ConflictError(`The restore is not ready: ${reasons[0]}`, {
        conflicts: plan.conflicts,
        blockedProjects: plan.projects.filter((project) => project.action === 'blocked').map((project) => project.slug),
      });
    }
    const rows = buildRows(tx, deps, file, plan, credentials);
    const [currentDefault] = await tx.db
      .select({ id: storageProviders.id })
      .from(storageProviders)
      .where(and(eq(storageProviders.organizationId, actor.organizationId), eq(storageProviders.isDefault, true)));
    if (currentDefault) for (const row of rows.storageProviders) row.isDefault = false;

    for (const project of plan.projects) {
      if (project.action === 'fill_empty_project')
        await tx.db
          .update(projects)
          .set({ name: project.name, ...backupRetention(file, project.id), ...backupBudget(file, project.id) })
          .where(eq(projects.id, project.existingProjectId!));
    }
    await insertMany(tx, projects, rows.projects, BACKED_UP.projects.resource);
    // A person restoring gets into the projects they create, as with POST /projects.
    if (actor.kind !== 'api_key') {
      for (const project of rows.projects) {
        await provisionMember(tx, {
          organizationId: actor.organizationId,
          projectId: project.id!,
          subject: actor.subject,
          kind: actor.kind,
          organizationRole: actor.organizationRole!,
          projectRole: 'owner',
          scopes: actor.scopes,
          displayName: actor.displayName,
        });
      }
    }
    // Restored webhooks start at each project's current end of the event log (rule 4).
    const positions = await latestProjectPositions(tx.db, [...new Set(rows.eventWebhooks.map((row) => row.projectId))]);
    for (const row of rows.eventWebhooks) row.deliveredPosition = positions.get(row.projectId) ?? 0n;

    // Every other backed-up table, parents first, in coverage.ts order.
    for (const name of BACKED_UP_NAMES) {
      if (name !== 'projects') await insertMany(tx, BACKED_UP[name].table, rows[name], BACKED_UP[name].resource);
    }
    // Restored schedules are paused; their Temporal Schedules are created (paused) after the commit.
    if (deps.schedules) for (const row of rows.schedules) syncAfterCommit(tx, deps.schedules, row.id!);

    const restored = plan.projects.map((project) => ({
      id: project.existingProjectId ?? rows.projectIds.get(project.id)!,
      slug: project.slug,
      name: project.name,
      action: project.action as 'create' | 'fill_empty_project',
    }));
    for (const project of restored) {
      await recordAudit(tx, {
        projectId: project.id,
        action: 'configuration.restored',
        targetType: 'project',
        targetId: project.id,
        details: { action: project.action },
      });
    }
    await recordAudit(tx, {
      action: 'organization.configuration_restored',
      targetType: 'organization',
      targetId: actor.organizationId,
      details: { projects: restored.map((project) => project.slug), counts: plan.counts },
    });
    return { projects: restored, counts: plan.counts };
  });
}

const readCredentials = (value: unknown): Credentials => parseAt(CredentialsInput, value ?? {}, 'body.credentials');

/** Rule 1: every required credential given, none other; each in the form its connection takes. */
function checkCredentials(plan: RestorePlan, credentials: Credentials): void {
  const required = new Map(plan.requiredCredentials.map((entry) => [`${entry.kind}:${entry.id}`, entry]));
  for (const entry of plan.requiredCredentials) {
    if (!(entry.id in credentials[entry.kind])) {
      throw new ValidationError(
        `credentials.${entry.kind}.${entry.id} is missing: the ${describe(entry.kind)} "${entry.key ?? entry.displayName}" needs its secret`,
        { path: `body.credentials.${entry.kind}.${entry.id}` },
      );
    }
  }
  for (const kind of Object.keys(credentials) as CredentialKind[]) {
    for (const id of Object.keys(credentials[kind])) {
      const path = `body.credentials.${kind}.${id}`;
      if (!required.has(`${kind}:${id}`))
        throw new ValidationError(`credentials.${kind}.${id} is not needed: the backup has no such ${describe(kind)} that takes a secret`, { path });
      const problem = credentialProblem(kind, credentials[kind][id]);
      if (problem) throw new ValidationError(`credentials.${kind}.${id}: ${problem}`, { path });
    }
  }
}

function credentialProblem(kind: CredentialKind, value: unknown): string | null {
  switch (kind) {
    case 'modelProviders':
    case 'sandboxProviders':
      return v.safeParse(ProviderApiKey, value).success ? null : 'must be the provider API key';
    case 'storageProviders':
      return v.safeParse(StorageCredentialInput, value).success ? null : 'must be {accessKeyId, secretAccessKey}';
    case 'mcpCredentials':
      return v.safeParse(McpSecret, value).success ? null : 'must be printable ASCII without spaces';
    case 'eventWebhooks':
      return typeof value === 'string' ? signingSecretProblem(value) : 'must be a signing secret starting with whsec_';
  }
}

const describe = (kind: CredentialKind) =>
  ({
    modelProviders: 'model provider',
    sandboxProviders: 'sandbox provider',
    storageProviders: 'storage provider',
    mcpCredentials: 'MCP credential',
    eventWebhooks: 'event webhook',
  })[kind];

/** Every row of the restore with its new id, before anything is written (pure but for sealing). */
function buildRows(tx: ServiceContext, deps: RestoreDeps, file: BackupFile, plan: RestorePlan, credentials: Credentials) {
  const actor = tx.actor!;
  const organizationId = actor.organizationId;
  const now = tx.clock.now();
  const at = (text: string) => new Date(text);
  const newIds = new Map<string, string>();
  const idFor = (fileId: string) => {
    let id = newIds.get(fileId);
    if (!id) newIds.set(fileId, (id = randomUUID()));
    return id;
  };
  const createdBy = actor.principalId;
  const maxVersion = (list: Array<{ version: number }>) => list.reduce((max, entry) => Math.max(max, entry.version), 0);

  const projectIds = new Map<string, string>();
  const projectRows: Array<typeof projects.$inferInsert> = [];
  for (const project of plan.projects) {
    const id = project.existingProjectId ?? idFor(project.id);
    projectIds.set(project.id, id);
    if (project.action === 'create')
      projectRows.push({
        id,
        organizationId,
        slug: project.slug,
        name: project.name,
        createdAt: now,
        ...backupRetention(file, project.id),
        ...backupBudget(file, project.id),
      });
  }

  const rows = {
    projectIds,
    projects: projectRows,
    modelProviders: file.modelProviders.map((entry) => {
      const id = idFor(entry.id);
      const sealed = entry.archived
        ? {}
        : sealCredential(deps.keyring, { plaintext: credentials.modelProviders[entry.id]!, associatedData: providerCredentialAad(id) });
      return {
        id,
        organizationId,
        key: entry.key,
        displayName: entry.displayName,
        providerType: entry.providerType,
        ...sealed,
        createdAt: at(entry.createdAt),
        updatedAt: now,
        removedAt: entry.archived ? now : null,
      };
    }),
    sandboxProviders: file.sandboxProviders.map((entry) => {
      const id = idFor(entry.id);
      const secret = credentials.sandboxProviders[entry.id];
      const sealed = secret ? sealCredential(deps.keyring, { plaintext: secret, associatedData: sandboxCredentialAad(id) }) : {};
      return {
        id,
        organizationId,
        key: entry.key,
        displayName: entry.displayName,
        providerType: entry.providerType,
        target: entry.target,
        restrictedEgress: entry.restrictedEgress,
        ...sealed,
        createdAt: at(entry.createdAt),
        updatedAt: now,
      };
    }),
    storageProviders: file.storageProviders.map((entry) => {
      const id = idFor(entry.id);
      const pair = credentials.storageProviders[entry.id];
      const sealed = pair ? sealStorageCredential(deps.keyring, { providerId: id, credential: v.parse(StorageCredentialInput, pair) }) : {};
      return {
        id,
        organizationId,
        key: entry.key,
        displayName: entry.displayName,
        providerType: entry.providerType,
        endpoint: entry.endpoint,
        region: entry.region,
        bucket: entry.bucket,
        prefix: entry.prefix,
        forcePathStyle: entry.forcePathStyle,
        isDefault: entry.isDefault,
        ...sealed,
        createdAt: at(entry.createdAt),
        updatedAt: now,
      };
    }),
    mcpServers: file.mcpServers.map((entry) => ({
      id: idFor(entry.id),
      organizationId,
      key: entry.key,
      displayName: entry.displayName,
      endpointUrl: entry.endpointUrl,
      transport: entry.transport,
      latestVersion: maxVersion(entry.versions),
      createdByPrincipalId: createdBy,
      createdAt: at(entry.createdAt),
    })),
    mcpServerVersions: file.mcpServers.flatMap((entry) =>
      entry.versions.map((version) => ({
        id: idFor(version.id),
        organizationId,
        serverId: idFor(entry.id),
        version: version.version,
        tools: version.tools as never[],
        toolsHash: toolSnapshotHash(version.tools as never[]),
        discoveredAt: version.discoveredAt ? at(version.discoveredAt) : null,
        createdByPrincipalId: createdBy,
        createdAt: at(version.createdAt),
      })),
    ),
    mcpCredentials: file.mcpCredentials.map((entry) => {
      const id = idFor(entry.id);
      const sealed = entry.revoked
        ? {}
        : sealCredential(deps.keyring, { plaintext: credentials.mcpCredentials[entry.id]!, associatedData: mcpCredentialAad(id) });
      return {
        id,
        organizationId,
        key: entry.key,
        displayName: entry.displayName,
        kind: entry.kind,
        headerName: entry.headerName,
        ...sealed,
        revokedAt: entry.revoked ? now : null,
        createdAt: at(entry.createdAt),
        updatedAt: now,
      };
    }),
    mcpCredentialPolicies: file.mcpCredentialPolicies.map((entry) => ({
      id: idFor(entry.id),
      organizationId,
      key: entry.key,
      latestVersion: maxVersion(entry.versions),
      createdAt: at(entry.createdAt),
    })),
    mcpCredentialPolicyVersions: file.mcpCredentialPolicies.flatMap((entry) =>
      entry.versions.map((version) => ({
        id: idFor(version.id),
        organizationId,
        policyId: idFor(entry.id),
        version: version.version,
        displayName: version.displayName,
        credentialId: idFor(version.credentialId),
        exactOrigin: version.exactOrigin,
        pathPrefix: version.pathPrefix,
        timeoutMs: version.timeoutMs,
        maximumResponseBytes: version.maximumResponseBytes,
        createdByPrincipalId: createdBy,
        createdAt: at(version.createdAt),
      })),
    ),
    modelPresets: [] as Array<typeof modelPresets.$inferInsert>,
    skills: [] as Array<typeof skills.$inferInsert>,
    skillVersions: [] as Array<typeof skillVersions.$inferInsert>,
    mcpToolsets: [] as Array<typeof mcpToolsets.$inferInsert>,
    mcpToolsetVersions: [] as Array<typeof mcpToolsetVersions.$inferInsert>,
    agents: [] as Array<typeof agents.$inferInsert>,
    agentVersions: [] as Array<typeof agentVersions.$inferInsert>,
    eventWebhooks: [] as Array<typeof eventWebhooks.$inferInsert & { projectId: string; deliveredPosition: bigint }>,
    schedules: [] as Array<typeof schedules.$inferInsert>,
    memoryStores: [] as Array<typeof memoryStores.$inferInsert>,
  };

  file.projects.forEach((project, p) => {
    const projectId = projectIds.get(project.id)!;
    const root = `body.backup.projects.${p}`;
    const scoped = { organizationId, projectId };
    for (const entry of project.modelPresets) {
      rows.modelPresets.push({
        id: idFor(entry.id),
        ...scoped,
        key: entry.key,
        displayName: entry.displayName,
        providerId: idFor(entry.providerId),
        model: entry.model,
        routing: entry.routing,
        settings: entry.settings,
        prices: entry.prices ?? null,
        contextWindow: entry.contextWindow ?? null,
        createdByPrincipalId: createdBy,
        createdAt: at(entry.createdAt),
        archivedAt: entry.archived ? now : null,
      });
    }
    project.skills.forEach((entry, s) => {
      rows.skills.push({
        id: idFor(entry.id),
        ...scoped,
        key: entry.key,
        displayName: entry.displayName,
        enabled: entry.enabled,
        disabledAt: entry.enabled ? null : now,
        latestVersion: maxVersion(entry.versions),
        createdAt: at(entry.createdAt),
        updatedAt: now,
        deletedAt: entry.removed ? now : null,
      });
      entry.versions.forEach((version, n) => {
        const content = {
          name: version.name,
          description: version.description,
          instructions: version.instructions,
          license: version.license,
          compatibility: version.compatibility,
          metadata: version.metadata,
          allowedTools: version.allowedTools,
          files: version.files,
        };
        assertPublishableContent(content, { prefix: `${root}.skills.${s}.versions.${n}` });
        rows.skillVersions.push({
          id: idFor(version.id),
          ...scoped,
          skillId: idFor(entry.id),
          version: version.version,
          ...content,
          contentHash: skillContentHash(content),
          status: version.status,
          createdByPrincipalId: createdBy,
          createdAt: at(version.createdAt),
        });
      });
    });
    for (const entry of project.mcpToolsets) {
      rows.mcpToolsets.push({ id: idFor(entry.id), ...scoped, key: entry.key, latestVersion: maxVersion(entry.versions), createdAt: at(entry.createdAt) });
      for (const version of entry.versions) {
        rows.mcpToolsetVersions.push({
          id: idFor(version.id),
          ...scoped,
          toolsetId: idFor(entry.id),
          version: version.version,
          displayName: version.displayName,
          serverVersionId: idFor(version.serverVersionId),
          tools: version.tools,
          createdByPrincipalId: createdBy,
          createdAt: at(version.createdAt),
        });
      }
    }
    project.agents.forEach((entry, a) => {
      const latest = entry.versions.reduce((best, version) => (version.version > best.version ? version : best));
      rows.agents.push({
        id: idFor(entry.id),
        ...scoped,
        key: entry.key,
        name: entry.name,
        description: entry.description === '' ? null : entry.description,
        latestVersionId: idFor(latest.id),
        latestVersion: latest.version,
        createdAt: at(entry.createdAt),
        updatedAt: now,
        deletedAt: entry.archived ? now : null,
      });
      entry.versions.forEach((version, n) => {
        const path = `${root}.agents.${a}.versions.${n}.config`;
        const config = parseAgentConfig(
          mapConfigReferences(version.config, (_kind, id) => idFor(id)),
          { root: path },
        );
        const contentHash = createHash('sha256').update(canonicalAgentConfig(config), 'utf8').digest('hex');
        rows.agentVersions.push({
          id: idFor(version.id),
          ...scoped,
          agentId: idFor(entry.id),
          version: version.version,
          config: config as Record<string, unknown>,
          contentHash,
          createdByPrincipalId: createdBy,
          createdAt: at(version.createdAt),
        });
      });
    });
    for (const entry of project.eventWebhooks) {
      const id = idFor(entry.id);
      const sealed = sealCredential(deps.keyring, { plaintext: credentials.eventWebhooks[entry.id]!, associatedData: webhookCredentialAad(id) });
      rows.eventWebhooks.push({
        id,
        ...scoped,
        displayName: entry.displayName,
        endpointUrl: entry.endpointUrl,
        eventKinds: entry.eventKinds,
        includeMessageContent: entry.includeMessageContent,
        enabled: entry.enabled,
        status: entry.enabled ? 'active' : 'disabled',
        disabledReason: entry.enabled ? null : 'user',
        ...sealed,
        deliveredPosition: 0n,
        createdByPrincipalId: createdBy,
        createdAt: at(entry.createdAt),
        updatedAt: now,
      });
    }
    (project.schedules ?? []).forEach((entry, n) => {
      // The API's own rules (timing, cron, time zone, bounds); a pinned version names its agent through it.
      const agent = entry.agentVersionId === null ? { agentId: idFor(entry.agentId) } : { agentVersionId: idFor(entry.agentVersionId) };
      const timing = { cron: entry.cron ?? undefined, intervalSeconds: entry.intervalSeconds ?? undefined };
      const body = parseAt(
        CreateScheduleInput,
        {
          ...agent,
          ...timing,
          name: entry.name,
          timeZone: entry.timeZone,
          message: entry.message,
          overlap: entry.overlap,
          catchupWindowSeconds: entry.catchupWindowSeconds,
          // The stores restored with it, by their new ids.
          ...(entry.memoryStores ? { memoryStores: entry.memoryStores.map((store) => ({ ...store, storeId: idFor(store.storeId) })) } : {}),
        },
        `${root}.schedules.${n}`,
      );
      rows.schedules.push({
        id: idFor(entry.id),
        ...scoped,
        name: body.name ?? null,
        agentId: idFor(entry.agentId),
        agentVersionId: body.agentVersionId ?? null,
        cron: body.cron ?? null,
        intervalSeconds: body.intervalSeconds ?? null,
        timeZone: body.timeZone!,
        message: body.message,
        files: [],
        overlap: body.overlap!,
        catchupWindowSeconds: body.catchupWindowSeconds!,
        target: 'new_session',
        sessionId: null,
        ifBusy: null,
        memoryStores: storedMemoryStores(body.memoryStores),
        paused: true,
        createdByPrincipalId: createdBy,
        actingPrincipalId: createdBy,
        createdAt: at(entry.createdAt),
        updatedAt: now,
      });
    });
    (project.memoryStores ?? []).forEach((entry, n) => {
      // The API's own field rules; the store starts empty (its memories are not in the file).
      const body = parseAt(CreateMemoryStoreInput, { name: entry.name, description: entry.description, metadata: entry.metadata }, `${root}.memoryStores.${n}`);
      rows.memoryStores.push({
        id: idFor(entry.id),
        ...scoped,
        name: body.name,
        description: body.description ?? '',
        metadata: body.metadata ?? {},
        archivedAt: entry.archived ? now : null,
        createdAt: at(entry.createdAt),
        updatedAt: now,
      });
    });
  });
  return rows;
}

const CHUNK_ROWS = 500;

/**
 * Multi-row inserts in chunks (bounded statement size). A failure names the resource and rolls
 * the whole restore back (rule 3).
 */
async function insertMany(tx: ServiceContext, table: PgTable, rows: Array<Record<string, unknown>>, resource: string): Promise<void> {
  try {
    for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
      await tx.db.insert(table).values(rows.slice(start, start + CHUNK_ROWS) as never);
    }
  } catch (error) {
    tx.logger.error('configuration restore failed', { err: error, resource, requestId: tx.requestId });
    throw new ConflictError(`Restoring the ${resource} failed; nothing was restored`, { resource });
  }
}

/** A backed-up project's retention overrides as columns (none in the file: the installation default); an out-of-range window is a 400 naming it. */
function backupRetention(file: BackupFile, backupProjectId: string): { sessionRetentionMinutes: number | null; eventRetentionMinutes: number | null } {
  const index = file.projects.findIndex((entry) => entry.id === backupProjectId);
  const retention = file.projects[index]?.retention;
  const minutes = (text: string | null, field: 'sessions' | 'events') => {
    if (text === null) return null;
    const value = retentionMinutes(text);
    if (value === null)
      throw new ValidationError(`The backup's retention window "${text}" is out of range (1m to 3650d)`, {
        path: `body.backup.projects.${index}.retention.${field}`,
      });
    return value;
  };
  return { sessionRetentionMinutes: minutes(retention?.sessions ?? null, 'sessions'), eventRetentionMinutes: minutes(retention?.events ?? null, 'events') };
}

/** A backed-up project's monthly budget as columns (none in the file: none); limits out of the API's bounds are a 400 naming them. */
function backupBudget(file: BackupFile, backupProjectId: string): { budgetMonthlyMaxCostNanos: number | null; budgetMonthlyMaxTokens: number | null } {
  const index = file.projects.findIndex((entry) => entry.id === backupProjectId);
  const parsed = v.safeParse(ProjectBudgetInput, file.projects[index]?.budget ?? null);
  if (!parsed.success) {
    const field = parsed.issues[0].path?.map((item) => String(item.key)).join('.');
    throw new ValidationError(`The backup's budget is invalid: ${parsed.issues[0].message}`, {
      path: `body.backup.projects.${index}.budget${field ? `.${field}` : ''}`,
    });
  }
  const stored = storedProjectBudget(parsed.output);
  return { budgetMonthlyMaxCostNanos: stored.maxCostNanos, budgetMonthlyMaxTokens: stored.maxTokens };
}
