import { ValidationError } from '../errors.ts';
import { parseAt } from '../model-presets/parse-at.ts';
import { mapConfigReferences } from './config-references.ts';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, BackupFile } from './format.ts';

/**
 * Reads a backup file from a request body: the format and version first (so a file of another
 * kind gets a plain answer), then its shape, then what shape cannot say: every id unique, every
 * link pointing at an entry of the right kind (configs at entries of their own project), keys
 * and version numbers unique where the database needs them. Every failure is a 400 naming the
 * path; nothing here touches the database.
 */
export function readBackupFile(value: unknown, path = 'body.backup'): BackupFile {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ValidationError(`${path} must be a backup file object`, { path });
  const { format, formatVersion } = value as { format?: unknown; formatVersion?: unknown };
  if (format !== BACKUP_FORMAT) throw new ValidationError(`${path}.format must be "${BACKUP_FORMAT}"`, { path: `${path}.format` });
  if (typeof formatVersion === 'number' && formatVersion > BACKUP_FORMAT_VERSION) {
    throw new ValidationError(`${path}.formatVersion ${formatVersion} is newer than this server reads (${BACKUP_FORMAT_VERSION}); upgrade the server first`, {
      path: `${path}.formatVersion`,
    });
  }
  const file = parseAt(BackupFile, value, path);
  checkLinks(file, path);
  return file;
}

type Kind =
  | 'modelProvider'
  | 'sandboxProvider'
  | 'storageProvider'
  | 'mcpServer'
  | 'mcpServerVersion'
  | 'mcpCredential'
  | 'mcpCredentialPolicy'
  | 'policyVersion'
  | 'project'
  | 'modelPreset'
  | 'skill'
  | 'skillVersion'
  | 'mcpToolset'
  | 'toolsetVersion'
  | 'agent'
  | 'agentVersion'
  | 'eventWebhook'
  | 'schedule'
  | 'memoryStore';

function checkLinks(file: BackupFile, root: string): void {
  // id → [kind, project id or null for organization entries]
  const ids = new Map<string, { kind: Kind; projectId: string | null }>();
  const declare = (id: string, kind: Kind, projectId: string | null, path: string) => {
    if (ids.has(id)) fail(`${path}.id "${id}" is used twice in the file`, `${path}.id`);
    ids.set(id, { kind, projectId });
  };
  const link = (id: string, kind: Kind, projectId: string | null, path: string) => {
    const target = ids.get(id);
    if (!target || target.kind !== kind || (projectId !== null && target.projectId !== null && target.projectId !== projectId)) {
      fail(`${path} "${id}" does not name a ${kind} in ${projectId ? 'this project of ' : ''}the file`, path);
    }
  };

  const organizationLists = [
    ['modelProviders', 'modelProvider', file.modelProviders],
    ['sandboxProviders', 'sandboxProvider', file.sandboxProviders],
    ['storageProviders', 'storageProvider', file.storageProviders],
    ['mcpServers', 'mcpServer', file.mcpServers],
    ['mcpCredentials', 'mcpCredential', file.mcpCredentials],
    ['mcpCredentialPolicies', 'mcpCredentialPolicy', file.mcpCredentialPolicies],
  ] as const;
  for (const [name, kind, list] of organizationLists) {
    unique<{ key: string; archived?: boolean }>(list, (entry) => (entry.archived ? null : entry.key), `${root}.${name}`, 'key');
    list.forEach((entry, index) => declare(entry.id, kind, null, `${root}.${name}.${index}`));
  }
  if (file.storageProviders.filter((entry) => entry.isDefault).length > 1)
    fail(`${root}.storageProviders has more than one default`, `${root}.storageProviders`);
  file.mcpServers.forEach((server, index) => versions(server.versions, `${root}.mcpServers.${index}`, 'mcpServerVersion', null));
  file.mcpCredentialPolicies.forEach((policy, index) => versions(policy.versions, `${root}.mcpCredentialPolicies.${index}`, 'policyVersion', null));
  file.mcpCredentialPolicies.forEach((policy, index) =>
    policy.versions.forEach((version, at) =>
      link(version.credentialId, 'mcpCredential', null, `${root}.mcpCredentialPolicies.${index}.versions.${at}.credentialId`),
    ),
  );

  unique(file.projects, (project) => project.slug, `${root}.projects`, 'slug');
  file.projects.forEach((project, p) => {
    const at = `${root}.projects.${p}`;
    declare(project.id, 'project', null, at);
    unique(project.modelPresets, (entry) => entry.key, `${at}.modelPresets`, 'key');
    unique(project.skills, (entry) => (entry.removed ? null : entry.key), `${at}.skills`, 'key');
    unique(project.mcpToolsets, (entry) => entry.key, `${at}.mcpToolsets`, 'key');
    unique(project.agents, (entry) => (entry.archived ? null : entry.key), `${at}.agents`, 'key');
    project.modelPresets.forEach((entry, index) => declare(entry.id, 'modelPreset', project.id, `${at}.modelPresets.${index}`));
    project.skills.forEach((entry, index) => {
      declare(entry.id, 'skill', project.id, `${at}.skills.${index}`);
      versions(entry.versions, `${at}.skills.${index}`, 'skillVersion', project.id);
    });
    project.mcpToolsets.forEach((entry, index) => {
      declare(entry.id, 'mcpToolset', project.id, `${at}.mcpToolsets.${index}`);
      versions(entry.versions, `${at}.mcpToolsets.${index}`, 'toolsetVersion', project.id);
    });
    project.agents.forEach((entry, index) => {
      declare(entry.id, 'agent', project.id, `${at}.agents.${index}`);
      versions(entry.versions, `${at}.agents.${index}`, 'agentVersion', project.id);
    });
    project.eventWebhooks.forEach((entry, index) => declare(entry.id, 'eventWebhook', project.id, `${at}.eventWebhooks.${index}`));
    (project.schedules ?? []).forEach((entry, index) => declare(entry.id, 'schedule', project.id, `${at}.schedules.${index}`));
    (project.memoryStores ?? []).forEach((entry, index) => declare(entry.id, 'memoryStore', project.id, `${at}.memoryStores.${index}`));
  });

  // Links, once every id is known (a config may point at a later agent's version).
  file.projects.forEach((project, p) => {
    const at = `${root}.projects.${p}`;
    project.modelPresets.forEach((entry, index) => link(entry.providerId, 'modelProvider', null, `${at}.modelPresets.${index}.providerId`));
    project.mcpToolsets.forEach((entry, index) =>
      entry.versions.forEach((version, v2) =>
        link(version.serverVersionId, 'mcpServerVersion', null, `${at}.mcpToolsets.${index}.versions.${v2}.serverVersionId`),
      ),
    );
    project.agents.forEach((entry, index) =>
      entry.versions.forEach((version, v2) =>
        mapConfigReferences(version.config, (kind, id, configPath) => {
          link(id, kind, kind === 'policyVersion' ? null : project.id, `${at}.agents.${index}.versions.${v2}.config.${configPath}`);
          return id;
        }),
      ),
    );
    (project.schedules ?? []).forEach((entry, index) => {
      link(entry.agentId, 'agent', project.id, `${at}.schedules.${index}.agentId`);
      (entry.memoryStores ?? []).forEach((store, s) => link(store.storeId, 'memoryStore', project.id, `${at}.schedules.${index}.memoryStores.${s}.storeId`));
      if (entry.agentVersionId === null) return;
      // A pinned version must be one of that agent's.
      const agent = project.agents.find((candidate) => candidate.id === entry.agentId)!;
      if (!agent.versions.some((version) => version.id === entry.agentVersionId))
        fail(
          `${at}.schedules.${index}.agentVersionId "${entry.agentVersionId}" does not name a version of its agent in the file`,
          `${at}.schedules.${index}.agentVersionId`,
        );
    });
  });

  function versions(list: Array<{ id: string; version: number }>, path: string, kind: Kind, projectId: string | null) {
    unique(list, (entry) => String(entry.version), `${path}.versions`, 'version');
    list.forEach((entry, index) => declare(entry.id, kind, projectId, `${path}.versions.${index}`));
  }
}

/** Entries for which `key` gives null (archived, removed) do not take part. */
function unique<T>(list: readonly T[], key: (entry: T) => string | null, path: string, field: string): void {
  const seen = new Set<string>();
  list.forEach((entry, index) => {
    const value = key(entry);
    if (value === null) return;
    if (seen.has(value)) fail(`${path}.${index}.${field} "${value}" appears twice`, `${path}.${index}.${field}`);
    seen.add(value);
  });
}

function fail(message: string, path: string): never {
  throw new ValidationError(message, { path });
}
