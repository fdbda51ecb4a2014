import { jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { agentVersions } from '../../db/schema/agents.ts';
import { sessions } from '../../db/schema/sessions.ts';
import { createdAt, id, organizationId, projectId, timestampColumn, updatedAt } from '../../db/schema/columns.ts';

/**
 * The Anthropic-compatible API's own state (docs/decisions/anthropic-compat-agents.md): what
 * a Claude Managed Agents agent version carries that ours does not (its name and description as
 * of that version, the model object, a `null` system prompt, metadata, Skill references), kept
 * beside the version it was published as.
 */
export const compatAnthropicAgentVersions = pgTable('compat_anthropic_agent_versions', {
  agentVersionId: uuid('agent_version_id')
    .primaryKey()
    .references(() => agentVersions.id, { onDelete: 'cascade' }),
  organizationId: organizationId(),
  projectId: projectId(),
  view: jsonb('view').$type<Record<string, unknown>>().notNull(),
  createdAt: createdAt(),
});

/**
 * Claude Managed Agents environments: metadata only (a session's sandbox comes from its agent
 * version); `env_default` exists without a row.
 */
export const compatAnthropicEnvironments = pgTable('compat_anthropic_environments', {
  id: id(),
  organizationId: organizationId(),
  projectId: projectId(),
  name: text('name').notNull(),
  description: text('description'),
  config: jsonb('config').$type<Record<string, unknown>>().notNull(),
  metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  archivedAt: timestampColumn('archived_at'),
});

/**
 * What a Claude Managed Agents session carries that ours does not: the environment it named and
 * its metadata.
 */
export const compatAnthropicSessions = pgTable('compat_anthropic_sessions', {
  sessionId: uuid('session_id')
    .primaryKey()
    .references(() => sessions.id, { onDelete: 'cascade' }),
  organizationId: organizationId(),
  projectId: projectId(),
  environmentId: text('environment_id').notNull(),
  metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
  createdAt: createdAt(),
});
