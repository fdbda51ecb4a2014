import * as v from 'valibot';
import { ModelPricesShape } from './usage.ts';
import { EFFORT_LEVELS, MODEL_PROVIDER_TYPES } from '../model-catalog/types.ts';
import { SnapshotEntry } from '../sandbox/snapshot-registry.ts';
import { Id, page, Timestamp } from './common.ts';

/**
 * Model, sandbox and storage provider connections, model presets and the model catalog (spec 1
 * "Model providers", "Sandbox, storage, MCP"). Credentials are write-only: a connection shows
 * whether one is configured, its fingerprint and its version, never the secret.
 */
const ProviderType = v.picklist(MODEL_PROVIDER_TYPES);
const credentialFields = {
  credentialConfigured: v.boolean(),
  credentialFingerprint: v.nullable(v.string()),
  credentialVersion: v.pipe(v.number(), v.integer()),
};

export const PublicModelProviderShape = v.strictObject({
  id: Id,
  organizationId: Id,
  key: v.string(),
  displayName: v.string(),
  providerType: ProviderType,
  ...credentialFields,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const ModelProviderPageShape = page(PublicModelProviderShape);
export const ModelProviderRemovedShape = v.strictObject({ id: Id, removed: v.literal(true) });

export const PublicSandboxProviderShape = v.strictObject({
  id: Id,
  organizationId: Id,
  key: v.string(),
  displayName: v.string(),
  providerType: v.literal('sandbox_vendor'),
  target: v.nullable(v.string()),
  restrictedEgress: v.strictObject({ allowedDomains: v.array(v.string()), allowedCidrs: v.array(v.string()) }),
  ...credentialFields,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const SandboxProviderPageShape = page(PublicSandboxProviderShape);

/** A registered snapshot as connections see it: everything but the root filesystem, plus `available`. */
export const PublicSnapshotShape = v.strictObject({ ...v.omit(SnapshotEntry, ['rootfs']).entries, available: v.boolean() });
export const SnapshotListShape = v.strictObject({ data: v.array(PublicSnapshotShape), pageInfo: v.strictObject({ nextCursor: v.null() }) });

export const PublicStorageProviderShape = v.strictObject({
  id: Id,
  organizationId: Id,
  key: v.string(),
  displayName: v.string(),
  providerType: v.literal('s3'),
  endpoint: v.nullable(v.string()),
  region: v.string(),
  bucket: v.string(),
  prefix: v.nullable(v.string()),
  forcePathStyle: v.boolean(),
  isDefault: v.boolean(),
  ...credentialFields,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const StorageProviderPageShape = page(PublicStorageProviderShape);

/** One folder level of a connection's objects; keys are relative to the tenant's path. */
export const StoredObjectListingShape = v.strictObject({
  prefix: v.string(),
  folders: v.array(v.string()),
  objects: v.array(v.strictObject({ key: v.string(), sizeBytes: v.number(), lastModifiedAt: v.optional(Timestamp) })),
  truncated: v.boolean(),
  cursor: v.optional(v.string()),
});

/**
 * A preset. Deployment presets (from the server's file) have `projectId` and `createdAt` null and
 * `providerId` null when no connection of their key and type exists; `available` is false when
 * the preset cannot run now.
 */
export const PublicModelPresetShape = v.strictObject({
  id: Id,
  organizationId: Id,
  projectId: v.nullable(Id),
  key: v.string(),
  displayName: v.string(),
  origin: v.picklist(['deployment', 'project']),
  providerId: v.nullable(Id),
  providerKey: v.string(),
  providerType: ProviderType,
  model: v.string(),
  routing: v.record(v.string(), v.unknown()),
  settings: v.nullable(v.record(v.string(), v.unknown())),
  available: v.boolean(),
  /** Prices per million tokens in the installation's currency (null: unpriced, its calls cost 0). */
  prices: v.nullable(ModelPricesShape),
  createdAt: v.nullable(Timestamp),
});
export const ModelPresetPageShape = page(PublicModelPresetShape);
export const ModelPresetArchivedShape = v.strictObject({ id: Id, key: v.string(), archived: v.literal(true) });

const PositiveOrNull = v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1)));
const FlagOrNull = v.nullable(v.boolean());

/** One model of a vendor's catalog, as the runtime understands it. */
export const CatalogEntryShape = v.strictObject({
  providerType: ProviderType,
  /** `<providerType>/<catalogId>`: the identifier presets store. */
  model: v.string(),
  catalogId: v.string(),
  displayName: v.string(),
  contextWindow: PositiveOrNull,
  outputLimit: PositiveOrNull,
  reasoning: FlagOrNull,
  adaptiveThinking: v.optional(FlagOrNull),
  thinkingCanBeDisabled: v.optional(FlagOrNull),
  effortLevels: v.optional(v.nullable(v.array(v.picklist(EFFORT_LEVELS)))),
  /** Gateway entries: the published prices in USD per million tokens (null: none or variable). */
  pricesUsd: v.optional(
    v.nullable(v.strictObject({ input: v.number(), output: v.number(), cacheRead: v.nullable(v.number()), cacheWrite: v.nullable(v.number()) })),
  ),
  /** False for models the runtime cannot drive; such entries cannot back a preset. */
  runtimeSupported: v.boolean(),
});
export const ModelCatalogShape = v.strictObject({
  providerId: Id,
  providerType: ProviderType,
  data: v.array(CatalogEntryShape),
  total: v.pipe(v.number(), v.integer()),
});
