import * as v from 'valibot';
import { MCP_CREDENTIAL_KINDS, MCP_TOOL_APPROVALS, MCP_TRANSPORTS } from '../mcp/types.ts';
import { Id, page, Timestamp } from './common.ts';

/** MCP servers, credentials, credential policies and toolsets (spec 1 "Sandbox, storage, MCP"). */
const VersionNumber = v.pipe(v.number(), v.integer(), v.minValue(1));

/** Redacted credential metadata: the secret is write-only; its fingerprint shows. */
export const PublicMcpCredentialShape = v.strictObject({
  id: Id,
  organizationId: Id,
  key: v.string(),
  displayName: v.string(),
  kind: v.picklist(MCP_CREDENTIAL_KINDS),
  headerName: v.nullable(v.string()),
  /** `active` until revoked; revoked stays revoked. */
  lifecycle: v.picklist(['active', 'revoked']),
  credentialConfigured: v.boolean(),
  credentialFingerprint: v.nullable(v.string()),
  /** 1 when created, +1 per rotation. */
  credentialVersion: VersionNumber,
  revokedAt: v.nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const McpCredentialPageShape = page(PublicMcpCredentialShape);

/** One immutable policy version; `active` while its credential is not revoked. */
export const PublicMcpCredentialPolicyVersionShape = v.strictObject({
  id: Id,
  policyId: Id,
  key: v.string(),
  version: VersionNumber,
  /** The policy's newest version number (this one or a later one). */
  latestVersion: VersionNumber,
  displayName: v.string(),
  credentialId: Id,
  exactOrigin: v.string(),
  pathPrefix: v.string(),
  timeoutMs: v.pipe(v.number(), v.integer()),
  maximumResponseBytes: v.pipe(v.number(), v.integer()),
  active: v.boolean(),
  createdAt: Timestamp,
});
export const McpCredentialPolicyVersionPageShape = page(PublicMcpCredentialPolicyVersionShape);

/** One tool of a server version's snapshot, as the server described it. */
export const McpToolSnapshotEntryShape = v.strictObject({
  name: v.string(),
  description: v.nullable(v.string()),
  /** The tool's `inputSchema`, exactly as the server sent it. */
  inputSchema: v.record(v.string(), v.unknown()),
});

export const PublicMcpServerVersionShape = v.strictObject({
  id: Id,
  serverId: Id,
  version: VersionNumber,
  /** The discovered tool snapshot. */
  tools: v.array(McpToolSnapshotEntryShape),
  /** null until a discovery produced this snapshot (version 1 of a never-discovered server). */
  discoveredAt: v.nullable(Timestamp),
  createdAt: Timestamp,
});

export const PublicMcpServerShape = v.strictObject({
  id: Id,
  organizationId: Id,
  key: v.string(),
  displayName: v.string(),
  endpointUrl: v.string(),
  transport: v.picklist(MCP_TRANSPORTS),
  latestVersion: VersionNumber,
  latestVersionId: Id,
  /** Every version, newest first. */
  versions: v.array(PublicMcpServerVersionShape),
  createdAt: Timestamp,
});
export const McpServerPageShape = page(PublicMcpServerShape);
/** A discovery: the server, the version the snapshot now matches, and whether it published a new one. */
export const McpDiscoveryShape = v.strictObject({ server: PublicMcpServerShape, version: PublicMcpServerVersionShape, changed: v.boolean() });

export const PublicMcpToolsetVersionShape = v.strictObject({
  id: Id,
  toolsetId: Id,
  version: VersionNumber,
  displayName: v.string(),
  /** The server version it is pinned to, for good. */
  serverVersionId: Id,
  tools: v.array(v.strictObject({ remoteToolName: v.string(), approval: v.picklist(MCP_TOOL_APPROVALS) })),
  createdAt: Timestamp,
});

export const PublicMcpToolsetShape = v.strictObject({
  id: Id,
  projectId: Id,
  key: v.string(),
  latestVersion: VersionNumber,
  latestVersionId: Id,
  /** Every version, newest first. */
  versions: v.array(PublicMcpToolsetVersionShape),
  createdAt: Timestamp,
});
export const McpToolsetPageShape = page(PublicMcpToolsetShape);
