import type { Settings } from '../config/settings.ts';
import type { Snapshot } from '../domain/sandbox/snapshot-registry.ts';
import { keyringFromSettings, type CredentialKeyring } from '../services/kernel/credentials/index.ts';
import { loadDeploymentPresets, type DeploymentPreset } from '../services/configuration/model-presets/index.ts';
import { loadSnapshotRegistry } from '../services/configuration/sandbox-providers/index.ts';

/** What a process derives from its settings once, at start, and shares between API and worker. */
export type SettingsDependencies = {
  keyring: CredentialKeyring;
  /** SVC_DEPLOYMENT_PRESETS_FILE, validated. */
  deploymentPresets: readonly DeploymentPreset[];
  /** SVC_SANDBOX_SNAPSHOTS_FILE (or the built-in snapshot), validated. */
  sandboxSnapshots: readonly Snapshot[];
};

/**
 * Loads the settings-derived dependencies: the credential keyring, the deployment presets and the
 * sandbox snapshot registry. A bad key or file stops the process here, before anything starts.
 * Every entry point calls this once and passes the result to the API and the worker.
 */
export function loadSettingsDependencies(settings: Settings): SettingsDependencies {
  return {
    keyring: keyringFromSettings(settings),
    deploymentPresets: loadDeploymentPresets(settings.deploymentPresetsFile),
    sandboxSnapshots: loadSnapshotRegistry(settings.sandbox.snapshotsFile),
  };
}
