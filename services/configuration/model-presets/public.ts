import type * as v from 'valibot';
import type { PublicModelPresetShape } from '../../../domain/public-shapes/connections.ts';
import type { modelPresets } from '../../../db/schema/index.ts';
import type { ModelProviderType } from '../../../domain/model-catalog/types.ts';
import type { ModelProviderRow } from '../model-providers/index.ts';
import type { DeploymentPreset } from './deployment.ts';

export type ModelPresetRow = typeof modelPresets.$inferSelect;

/**
 * A preset as lists show it. Project presets carry their project; deployment presets (from the
 * server's file) have `projectId` and `createdAt` null and resolve their provider connection by
 * key in the caller's organization (`providerId` null when none matches). `available` is false
 * when the preset cannot run now: its provider is removed, has no credential, or (deployment)
 * is missing or of another type.
 */
export type PublicModelPreset = v.InferOutput<typeof PublicModelPresetShape>;

/** Whether a connection can serve calls now. */
export const isProviderUsable = (provider: ModelProviderRow | null | undefined, providerType: ModelProviderType): boolean =>
  Boolean(provider && provider.removedAt === null && provider.credentialCiphertext !== null && provider.providerType === providerType);

export const providerTypeOfModel = (model: string): ModelProviderType => model.slice(0, model.indexOf('/')) as ModelProviderType;

export const toProjectPresetResponse = (row: ModelPresetRow, provider: ModelProviderRow): PublicModelPreset => ({
  id: row.id,
  organizationId: row.organizationId,
  projectId: row.projectId,
  key: row.key,
  displayName: row.displayName,
  origin: 'project',
  providerId: row.providerId,
  providerKey: provider.key,
  providerType: provider.providerType,
  model: row.model,
  routing: row.routing,
  settings: row.settings ?? null,
  available: isProviderUsable(provider, provider.providerType),
  prices: row.prices ?? null,
  createdAt: row.createdAt.toISOString(),
});

export const toDeploymentPresetResponse = (preset: DeploymentPreset, organizationId: string, provider: ModelProviderRow | null): PublicModelPreset => ({
  id: preset.id,
  organizationId,
  projectId: null,
  key: preset.key,
  displayName: preset.displayName,
  origin: 'deployment',
  providerId: provider && provider.providerType === preset.providerType ? provider.id : null,
  providerKey: preset.providerKey,
  providerType: preset.providerType,
  model: preset.model,
  routing: preset.routing,
  settings: preset.settings,
  available: isProviderUsable(provider, preset.providerType),
  prices: preset.prices,
  createdAt: null,
});
