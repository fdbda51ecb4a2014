import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { McpCredentialKind, McpToolApproval, McpTransport, McpToolSnapshotEntry } from '../../domain/mcp/types.ts';
import { createdAt, credentialColumns, id, organizationId, projectId, timestampColumn, updatedAt } from './columns.ts';

/**
 * Remote MCP servers, shared by every project of an organization. The row holds what never
 * changes (key, endpoint, transport); each discovery that finds different tool metadata adds an
 * immutable version with its tool snapshot. Version 1 is created with the server, before any
 * discovery, with an empty snapshot.
 */
export const mcpServers = pgTable(
  'mcp_servers',
  {
    id: id(),
    organizationId: organizationId(),
    key: text('key').notNull(),
    displayName: text('display_name').notNull(),
    endpointUrl: text('endpoint_url').notNull(),
    transport: text('transport').$type<McpTransport>().notNull(),
    latestVersion: integer('latest_version').notNull().default(1),
    createdByPrincipalId: uuid('created_by_principal_id'),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('mcp_servers_key').on(table.organizationId, table.key),
    index('mcp_servers_organization_idx').on(table.organizationId, table.createdAt),
  ],
);

/** Immutable server versions: the tool snapshot as discovered (input schemas as the server gave them). */
export const mcpServerVersions = pgTable(
  'mcp_server_versions',
  {
    id: id(),
    organizationId: organizationId(),
    serverId: uuid('server_id')
      .notNull()
      .references(() => mcpServers.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    tools: jsonb('tools').$type<McpToolSnapshotEntry[]>().notNull(),
    /** SHA-256 of the canonical tool snapshot: an unchanged discovery finds it equal. */
    toolsHash: text('tools_hash').notNull(),
    /** When a discovery produced this snapshot; null for version 1 until a discovery. */
    discoveredAt: timestampColumn('discovered_at'),
    createdByPrincipalId: uuid('created_by_principal_id'),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex('mcp_server_versions_version').on(table.serverId, table.version)],
);

/**
 * MCP credentials, shared by the organization. The secret is sealed with the credential keyring
 * (AAD `mcp_credential:<id>`); rotation seals a new secret and raises `credentialVersion`;
 * revocation wipes the ciphertext for good.
 */
export const mcpCredentials = pgTable(
  'mcp_credentials',
  {
    id: id(),
    organizationId: organizationId(),
    key: text('key').notNull(),
    displayName: text('display_name').notNull(),
    kind: text('kind').$type<McpCredentialKind>().notNull(),
    headerName: text('header_name'),
    ...credentialColumns(),
    revokedAt: timestampColumn('revoked_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('mcp_credentials_key').on(table.organizationId, table.key),
    index('mcp_credentials_organization_idx').on(table.organizationId, table.createdAt),
  ],
);

/** Credential policies: a key per organization; the rules live in immutable versions. */
export const mcpCredentialPolicies = pgTable(
  'mcp_credential_policies',
  {
    id: id(),
    organizationId: organizationId(),
    key: text('key').notNull(),
    latestVersion: integer('latest_version').notNull().default(1),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex('mcp_credential_policies_key').on(table.organizationId, table.key)],
);

/** Where a credential may be sent: one exact origin, under one path prefix, with limits. */
export const mcpCredentialPolicyVersions = pgTable(
  'mcp_credential_policy_versions',
  {
    id: id(),
    organizationId: organizationId(),
    policyId: uuid('policy_id')
      .notNull()
      .references(() => mcpCredentialPolicies.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    displayName: text('display_name').notNull(),
    credentialId: uuid('credential_id')
      .notNull()
      .references(() => mcpCredentials.id),
    exactOrigin: text('exact_origin').notNull(),
    pathPrefix: text('path_prefix').notNull(),
    timeoutMs: integer('timeout_ms').notNull(),
    maximumResponseBytes: integer('maximum_response_bytes').notNull(),
    createdByPrincipalId: uuid('created_by_principal_id'),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('mcp_credential_policy_versions_version').on(table.policyId, table.version),
    index('mcp_credential_policy_versions_organization_idx').on(table.organizationId, table.createdAt),
  ],
);

/** Project toolsets: a key per project; the tool selection lives in immutable versions. */
export const mcpToolsets = pgTable(
  'mcp_toolsets',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    key: text('key').notNull(),
    latestVersion: integer('latest_version').notNull().default(1),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex('mcp_toolsets_key').on(table.projectId, table.key), index('mcp_toolsets_project_idx').on(table.projectId, table.createdAt)],
);

/** A toolset version pins one server version and selects 1-64 of its tools. */
export const mcpToolsetVersions = pgTable(
  'mcp_toolset_versions',
  {
    id: id(),
    organizationId: organizationId(),
    projectId: projectId(),
    toolsetId: uuid('toolset_id')
      .notNull()
      .references(() => mcpToolsets.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    displayName: text('display_name').notNull(),
    serverVersionId: uuid('server_version_id')
      .notNull()
      .references(() => mcpServerVersions.id),
    tools: jsonb('tools').$type<Array<{ remoteToolName: string; approval: McpToolApproval }>>().notNull(),
    createdByPrincipalId: uuid('created_by_principal_id'),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex('mcp_toolset_versions_version').on(table.toolsetId, table.version)],
);
