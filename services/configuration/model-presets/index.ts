// The verbs and read models of configuration/model-presets/ that other folders use; nothing else here is importable from outside (test/architecture.test.ts).
export { listActiveModelPresetKeys } from './active-keys.ts';
export { archiveModelPreset } from './archive.ts';
export { createModelPreset } from './create.ts';
export { DeploymentPresetsError, deploymentPresetId, loadDeploymentPresets } from './deployment.ts';
export type { DeploymentPreset } from './deployment.ts';
export { loadPresetFacts } from './facts.ts';
export { listModelPresets } from './list.ts';
export { providerTypeOfModel } from './public.ts';
export { loadProjectPresets, resolveDeploymentPresets } from './resolve.ts';
export { updateModelPresetPrices } from './update-prices.ts';
