import * as v from 'valibot';
import { ValidationError } from '../../../domain/errors.ts';

/**
 * Claude Managed Agents environments (docs/decisions/anthropic-compat-environments.md): sessions
 * name one, but here a session's sandbox comes from its agent version, so an environment is
 * metadata. `env_default` always exists. Package installs and self-hosted environments cannot be
 * honoured (400 naming the field).
 */
export const DEFAULT_ENVIRONMENT_ID = 'env_default';

const PACKAGE_MANAGERS = ['apt', 'cargo', 'gem', 'go', 'npm', 'pip'] as const;
const Networking = v.union([
  v.strictObject({ type: v.literal('unrestricted') }),
  v.strictObject({
    type: v.literal('limited'),
    allowed_hosts: v.optional(v.array(v.string())),
    allow_mcp_servers: v.optional(v.boolean()),
    allow_package_managers: v.optional(v.boolean()),
  }),
]);
const Config = v.strictObject({
  type: v.string(),
  networking: v.optional(v.nullable(Networking)),
  packages: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
});
const Metadata = v.record(v.string(), v.nullable(v.string()));

export const CreateEnvironmentParams = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  description: v.optional(v.nullable(v.string())),
  config: v.optional(v.nullable(Config)),
  metadata: v.optional(v.nullable(Metadata)),
  scope: v.optional(v.nullable(v.string())),
});
export type CreateEnvironmentParams = v.InferOutput<typeof CreateEnvironmentParams>;

export const UpdateEnvironmentParams = v.strictObject({
  name: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  description: v.optional(v.nullable(v.string())),
  config: v.optional(v.nullable(Config)),
  metadata: v.optional(v.nullable(Metadata)),
  scope: v.optional(v.nullable(v.string())),
});
export type UpdateEnvironmentParams = v.InferOutput<typeof UpdateEnvironmentParams>;

export type EnvironmentConfig = {
  type: 'cloud';
  networking: { type: 'unrestricted' } | { type: 'limited'; allowed_hosts: string[]; allow_mcp_servers: boolean; allow_package_managers: boolean };
  packages: Record<(typeof PACKAGE_MANAGERS)[number], string[]> & { type: 'packages' };
};

const emptyPackages = (): EnvironmentConfig['packages'] => ({ type: 'packages', apt: [], cargo: [], gem: [], go: [], npm: [], pip: [] });

/** A config as stored and rendered: every field filled; what cannot be honoured is refused. */
export function environmentConfigOf(config: v.InferOutput<typeof Config> | null | undefined): EnvironmentConfig {
  if (!config) return { type: 'cloud', networking: { type: 'unrestricted' }, packages: emptyPackages() };
  if (config.type !== 'cloud') throw new ValidationError('config.type: only "cloud" environments are supported by this server', { path: 'body.config.type' });
  for (const [manager, list] of Object.entries(config.packages ?? {})) {
    if (manager === 'type') continue;
    if (!(PACKAGE_MANAGERS as readonly string[]).includes(manager))
      throw new ValidationError(`config.packages.${manager}: unknown package manager`, { path: `body.config.packages.${manager}` });
    if (Array.isArray(list) && list.length > 0)
      throw new ValidationError(`config.packages.${manager}: installing packages is not supported by this server`, { path: `body.config.packages.${manager}` });
  }
  const networking = config.networking ?? { type: 'unrestricted' as const };
  return {
    type: 'cloud',
    networking:
      networking.type === 'unrestricted'
        ? { type: 'unrestricted' }
        : {
            type: 'limited',
            allowed_hosts: networking.allowed_hosts ?? [],
            allow_mcp_servers: networking.allow_mcp_servers ?? false,
            allow_package_managers: networking.allow_package_managers ?? false,
          },
    packages: emptyPackages(),
  };
}

export type EnvironmentRecord = {
  id: string;
  name: string;
  description: string | null;
  config: EnvironmentConfig;
  metadata: Record<string, string>;
  createdAt: Date;
  updatedAt: Date;
  archivedAt: Date | null;
};

/** `BetaEnvironment`. */
export function renderEnvironment(environment: EnvironmentRecord) {
  return {
    id: environment.id,
    type: 'environment' as const,
    name: environment.name,
    description: environment.description,
    config: environment.config,
    metadata: environment.metadata,
    created_at: environment.createdAt.toISOString(),
    updated_at: environment.updatedAt.toISOString(),
    archived_at: environment.archivedAt ? environment.archivedAt.toISOString() : null,
  };
}
export type CmaEnvironment = ReturnType<typeof renderEnvironment>;

/** The built-in environment every project has (its times: the project's creation). */
export function defaultEnvironment(projectCreatedAt: Date): EnvironmentRecord {
  return {
    id: DEFAULT_ENVIRONMENT_ID,
    name: 'Default',
    description: 'The built-in environment: sessions use their agent version’s sandbox settings.',
    config: environmentConfigOf(null),
    metadata: {},
    createdAt: projectCreatedAt,
    updatedAt: projectCreatedAt,
    archivedAt: null,
  };
}
