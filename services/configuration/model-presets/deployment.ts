import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DomainError } from '../../../domain/errors.ts';
import { parseDeploymentPresets, type DeploymentPresetDefinition } from '../../../domain/model-presets/deployment-file.ts';

/** A deployment preset from SVC_DEPLOYMENT_PRESETS_FILE, with its stable id. */
export type DeploymentPreset = DeploymentPresetDefinition & { id: string };

/** A bad SVC_DEPLOYMENT_PRESETS_FILE: the server refuses to start. */
export class DeploymentPresetsError extends Error {
  override name = 'DeploymentPresetsError';
}

/**
 * Deployment presets have no row, so their id is derived from the key (a UUID-shaped SHA-256
 * prefix): the same in every project and across restarts, so `DELETE .../{id}` can name one
 * (and be refused).
 */
export function deploymentPresetId(key: string): string {
  const hex = createHash('sha256').update(`svc deployment preset:${key}`, 'utf8').digest('hex');
  // Version nibble 8 (custom) and the RFC 4122 variant keep it a valid UUID string.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Reads and validates SVC_DEPLOYMENT_PRESETS_FILE once at start (none configured: no presets).
 * Any problem — unreadable file, invalid JSON, a bad entry — throws DeploymentPresetsError
 * naming the file and the entry path, so the process stops with a clear message.
 */
export function loadDeploymentPresets(file: string | undefined): DeploymentPreset[] {
  if (!file) return [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new DeploymentPresetsError(`SVC_DEPLOYMENT_PRESETS_FILE ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DeploymentPresetsError(`SVC_DEPLOYMENT_PRESETS_FILE ${file} is not valid JSON`);
  }
  try {
    return parseDeploymentPresets(json).map((preset) => ({ ...preset, id: deploymentPresetId(preset.key) }));
  } catch (error) {
    if (error instanceof DomainError) throw new DeploymentPresetsError(`SVC_DEPLOYMENT_PRESETS_FILE ${file} is invalid: ${error.message}`);
    throw error;
  }
}
