import * as v from 'valibot';
import { MODEL_PROVIDER_TYPES } from '../model-catalog/types.ts';
import { MCP_CREDENTIAL_KINDS, MCP_TOOL_APPROVALS, MCP_TRANSPORTS } from '../mcp/types.ts';
import { MEMORY_ACCESS, MEMORY_INSTRUCTIONS_MAX_CHARS } from '../memory/attachments.ts';
import { MEMORY_STORE_DESCRIPTION_MAX_CHARS, MEMORY_STORE_NAME_MAX_CHARS, SESSION_MEMORY_STORES_MAX } from '../memory/limits.ts';
import { MAX_SCHEDULES_PER_PROJECT, SCHEDULE_OVERLAPS } from '../schedules/inputs.ts';
import { MESSAGE_TEXT_MAX_LENGTH } from '../sessions/limits.ts';
import { MAX_PRICE_PER_MILLION } from '../usage/prices.ts';

/**
 * The organization configuration backup file (spec 1 "Configuration backup file"), format
 * version 1. Every entry has a file-local `id` that only links entries inside the file
 * (`modelProvider-1`, `agent-3.v2`, ...). Content rules beyond shape (an agent config, a Skill
 * file, an endpoint) are checked when the file is restored, by the same rules the API applies.
 * docs/configuration-backup.schema.json is generated from these schemas.
 */
export const BACKUP_FORMAT = 'svc.organization-configuration';
export const BACKUP_FORMAT_VERSION = 1;

const Id = v.pipe(v.string(), v.minLength(1), v.maxLength(100));
const Text = (max = 2_000) => v.pipe(v.string(), v.maxLength(max));
const Key = v.pipe(v.string(), v.minLength(1), v.maxLength(200));
const Timestamp = v.pipe(v.string(), v.isoTimestamp());
const VersionNumber = v.pipe(v.number(), v.integer(), v.minValue(1));
/** The first 12 hex characters of the credential's SHA-256; null when the connection holds none. */
const Fingerprint = v.nullable(v.pipe(v.string(), v.regex(/^[0-9a-f]{12}$/)));
const JsonObject = v.record(v.string(), v.unknown());
const list = <T extends v.GenericSchema>(item: T, max = 10_000) => v.pipe(v.array(item), v.maxLength(max));
/** An entry's immutable versions: at least one, each with its id, number and creation time. */
const versions = <T extends v.ObjectEntries>(entries: T) =>
  v.pipe(list(v.strictObject({ id: Id, version: VersionNumber, ...entries, createdAt: Timestamp })), v.minLength(1));

export const BackupModelProvider = v.strictObject({
  id: Id,
  key: Key,
  displayName: Text(200),
  providerType: v.picklist(MODEL_PROVIDER_TYPES),
  credentialFingerprint: Fingerprint,
  archived: v.boolean(),
  createdAt: Timestamp,
});

export const BackupSandboxProvider = v.strictObject({
  id: Id,
  key: Key,
  displayName: Text(200),
  providerType: v.literal('sandbox_vendor'),
  target: v.nullable(Text()),
  restrictedEgress: v.strictObject({ allowedDomains: list(Text(253), 100), allowedCidrs: list(Text(50), 100) }),
  credentialFingerprint: Fingerprint,
  createdAt: Timestamp,
});

export const BackupStorageProvider = v.strictObject({
  id: Id,
  key: Key,
  displayName: Text(200),
  providerType: v.literal('s3'),
  endpoint: v.nullable(Text()),
  region: Text(100),
  bucket: Text(255),
  prefix: v.nullable(Text(1_024)),
  forcePathStyle: v.boolean(),
  isDefault: v.boolean(),
  credentialFingerprint: Fingerprint,
  createdAt: Timestamp,
});

export const BackupMcpServer = v.strictObject({
  id: Id,
  key: Key,
  displayName: Text(200),
  endpointUrl: Text(),
  transport: v.picklist(MCP_TRANSPORTS),
  createdAt: Timestamp,
  versions: versions({ tools: list(JsonObject, 256), discoveredAt: v.nullable(Timestamp) }),
});

export const BackupMcpCredential = v.strictObject({
  id: Id,
  key: Key,
  displayName: Text(200),
  kind: v.picklist(MCP_CREDENTIAL_KINDS),
  headerName: v.nullable(Text(200)),
  credentialFingerprint: Fingerprint,
  revoked: v.boolean(),
  createdAt: Timestamp,
});

export const BackupMcpCredentialPolicy = v.strictObject({
  id: Id,
  key: Key,
  createdAt: Timestamp,
  versions: versions({
    displayName: Text(200),
    credentialId: Id,
    exactOrigin: Text(),
    pathPrefix: Text(),
    timeoutMs: v.pipe(v.number(), v.integer()),
    maximumResponseBytes: v.pipe(v.number(), v.integer()),
  }),
});

const Price = v.pipe(v.number(), v.minValue(0), v.maxValue(MAX_PRICE_PER_MILLION));

/** A preset's prices per million tokens (docs/decisions/preset-prices.md), in the backed-up installation's currency. */
const BackupPrices = v.strictObject({
  input: Price,
  output: Price,
  cacheRead: v.nullable(Price),
  cacheWrite: v.nullable(Price),
  source: v.picklist(['catalog', 'operator']),
});

export const BackupModelPreset = v.strictObject({
  id: Id,
  key: Key,
  displayName: Text(200),
  providerId: Id,
  model: Text(300),
  routing: JsonObject,
  settings: v.nullable(JsonObject),
  /** Absent when the preset is unpriced (and in files written before prices). */
  prices: v.optional(BackupPrices),
  /** The model's context window as the catalog gave it at creation; absent when unknown (and in files written before it). */
  contextWindow: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000_000))),
  archived: v.boolean(),
  createdAt: Timestamp,
});

export const BackupSkillVersion = v.strictObject({
  id: Id,
  version: VersionNumber,
  name: Text(200),
  description: Text(2_000),
  instructions: Text(1_000_000),
  license: v.nullable(Text()),
  compatibility: v.nullable(Text()),
  metadata: v.record(v.string(), v.string()),
  allowedTools: list(Text(200), 1_000),
  files: list(v.strictObject({ path: Text(1_024), contentType: Text(200), dataBase64: v.string() }), 1_000),
  status: v.picklist(['active', 'deprecated', 'revoked']),
  createdAt: Timestamp,
});

export const BackupSkill = v.strictObject({
  id: Id,
  key: Key,
  displayName: Text(200),
  enabled: v.boolean(),
  removed: v.boolean(),
  createdAt: Timestamp,
  versions: list(BackupSkillVersion),
});

export const BackupMcpToolset = v.strictObject({
  id: Id,
  key: Key,
  createdAt: Timestamp,
  versions: versions({
    displayName: Text(200),
    serverVersionId: Id,
    tools: list(v.strictObject({ remoteToolName: Text(200), approval: v.picklist(MCP_TOOL_APPROVALS) }), 64),
  }),
});

export const BackupAgent = v.strictObject({
  id: Id,
  key: Key,
  name: Text(200),
  description: Text(),
  archived: v.boolean(),
  createdAt: Timestamp,
  versions: versions({ config: JsonObject }),
});

export const BackupEventWebhook = v.strictObject({
  id: Id,
  displayName: Text(200),
  endpointUrl: Text(),
  eventKinds: v.nullable(list(Text(200), 100)),
  includeMessageContent: v.boolean(),
  enabled: v.boolean(),
  credentialFingerprint: Fingerprint,
  createdAt: Timestamp,
});

/**
 * A schedule that opens a new session at each firing (one that sends turns to a session is not
 * backed up: sessions are not). Always restored paused, acting as the restoring principal, and
 * without files (uploads are object-storage contents); so `paused` and `files` are not in the
 * file. Timing rules (one of `cron` and `intervalSeconds`, the cron syntax, the time zone) are
 * checked at restore by the API's rules.
 */
export const BackupSchedule = v.strictObject({
  id: Id,
  name: v.nullable(Text(200)),
  agentId: Id,
  /** A pinned version of that agent, else null (each firing uses the agent's latest). */
  agentVersionId: v.nullable(Id),
  cron: v.nullable(Text(200)),
  intervalSeconds: v.nullable(v.pipe(v.number(), v.integer())),
  timeZone: Text(64),
  message: Text(MESSAGE_TEXT_MAX_LENGTH),
  overlap: v.picklist(SCHEDULE_OVERLAPS),
  catchupWindowSeconds: v.pipe(v.number(), v.integer()),
  /**
   * The memory stores each new session attaches, by the ids of `memoryStores` entries of the same
   * project; absent when it attaches none (and in files written before schedules took them).
   */
  memoryStores: v.optional(
    list(
      v.strictObject({ storeId: Id, access: v.picklist(MEMORY_ACCESS), instructions: v.nullable(Text(MEMORY_INSTRUCTIONS_MAX_CHARS)) }),
      SESSION_MEMORY_STORES_MAX,
    ),
  ),
  createdAt: Timestamp,
});

/**
 * A memory store's definition (docs/decisions/memory-stores.md): its memories and their versions
 * are data, like transcripts, and stay out of the file; a restored store starts empty.
 */
export const BackupMemoryStore = v.strictObject({
  id: Id,
  name: Text(MEMORY_STORE_NAME_MAX_CHARS),
  description: Text(MEMORY_STORE_DESCRIPTION_MAX_CHARS),
  metadata: v.record(v.string(), v.string()),
  archived: v.boolean(),
  createdAt: Timestamp,
});

/** A retention window as the project API writes it (`30d`, `12h`, `90m`); its range is checked at restore. */
const RetentionText = v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,7}[mhd]$/));

export const BackupProject = v.strictObject({
  id: Id,
  slug: Text(80),
  name: Text(200),
  /** The project's retention overrides (null: the installation default); absent when it has none (docs/decisions/project-retention-overrides.md). */
  retention: v.optional(v.strictObject({ sessions: v.nullable(RetentionText), events: v.nullable(RetentionText) })),
  /** The project's monthly budget; absent when it has none (docs/decisions/budgets.md). Its bounds are checked at restore. */
  budget: v.optional(v.strictObject({ maxMonthlyCost: v.nullable(v.number()), maxMonthlyTokens: v.nullable(v.pipe(v.number(), v.integer())) })),
  modelPresets: list(BackupModelPreset),
  skills: list(BackupSkill),
  mcpToolsets: list(BackupMcpToolset),
  agents: list(BackupAgent),
  eventWebhooks: list(BackupEventWebhook, 20),
  /** Absent in files written before schedules (and when a project has none). */
  schedules: v.optional(list(BackupSchedule, MAX_SCHEDULES_PER_PROJECT)),
  /** Absent in files written before memory stores (and when a project has none). */
  memoryStores: v.optional(list(BackupMemoryStore)),
});

export const BackupFile = v.strictObject({
  format: v.literal(BACKUP_FORMAT),
  formatVersion: v.literal(BACKUP_FORMAT_VERSION),
  modelProviders: list(BackupModelProvider),
  sandboxProviders: list(BackupSandboxProvider),
  storageProviders: list(BackupStorageProvider),
  mcpServers: list(BackupMcpServer),
  mcpCredentials: list(BackupMcpCredential),
  mcpCredentialPolicies: list(BackupMcpCredentialPolicy),
  projects: list(BackupProject, 1_000),
});

export type BackupFile = v.InferOutput<typeof BackupFile>;
export type BackupProject = v.InferOutput<typeof BackupProject>;
export type BackupAgent = v.InferOutput<typeof BackupAgent>;
export type BackupSkill = v.InferOutput<typeof BackupSkill>;
export type BackupSchedule = v.InferOutput<typeof BackupSchedule>;
export type BackupMemoryStore = v.InferOutput<typeof BackupMemoryStore>;
