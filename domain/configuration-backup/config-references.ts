/**
 * The ids inside an agent version config that point at other versioned resources. A backup
 * replaces them with file-local ids, a restore with the new rows' ids; everything else in the
 * config stays exactly as published (preset keys and sandbox provider keys are keys, not ids).
 */
export type ConfigReferenceKind = 'skillVersion' | 'agentVersion' | 'toolsetVersion' | 'policyVersion';

/** `map` returns the replacement id, or throws; `path` names the place (for error messages). */
export type MapReference = (kind: ConfigReferenceKind, id: string, path: string) => string;

export function mapConfigReferences(config: Record<string, unknown>, map: MapReference): Record<string, unknown> {
  const next: Record<string, unknown> = { ...config };
  if (Array.isArray(config.skillVersionIds)) {
    next.skillVersionIds = config.skillVersionIds.map((id, index) => (typeof id === 'string' ? map('skillVersion', id, `skillVersionIds.${index}`) : id));
  }
  if (Array.isArray(config.delegates)) {
    next.delegates = config.delegates.map((delegate, index) =>
      isObject(delegate) && typeof delegate.agentVersionId === 'string'
        ? { ...delegate, agentVersionId: map('agentVersion', delegate.agentVersionId, `delegates.${index}.agentVersionId`) }
        : delegate,
    );
  }
  if (Array.isArray(config.mcpBindings)) {
    next.mcpBindings = config.mcpBindings.map((binding, index) => {
      if (!isObject(binding)) return binding;
      const mapped = { ...binding };
      if (typeof binding.toolsetVersionId === 'string')
        mapped.toolsetVersionId = map('toolsetVersion', binding.toolsetVersionId, `mcpBindings.${index}.toolsetVersionId`);
      if (typeof binding.credentialPolicyVersionId === 'string') {
        mapped.credentialPolicyVersionId = map('policyVersion', binding.credentialPolicyVersionId, `mcpBindings.${index}.credentialPolicyVersionId`);
      }
      return mapped;
    });
  }
  return next;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
