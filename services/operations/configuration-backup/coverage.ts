import type { PgTable } from 'drizzle-orm/pg-core';
import {
  agents,
  agentVersions,
  eventWebhooks,
  mcpCredentialPolicies,
  mcpCredentialPolicyVersions,
  mcpCredentials,
  mcpServers,
  mcpServerVersions,
  mcpToolsets,
  mcpToolsetVersions,
  memoryStores,
  modelPresets,
  modelProviders,
  projects,
  sandboxProviders,
  schedules,
  skills,
  skillVersions,
  storageProviders,
} from '../../../db/schema/index.ts';

/**
 * What the configuration backup covers, table by table (README.md in this folder). Every table
 * of db/schema that belongs to an organization (an `organization_id` or `project_id` column, or a
 * foreign key to such a table) is either in `BACKED_UP` or in `NOT_BACKED_UP`, never both;
 * coverage.test.ts fails, naming the table, when one is in neither or a name here is stale.
 */
/** The backed-up kinds whose rows carry a write-only secret the restore asks for. */
export type CredentialKind = 'modelProviders' | 'sandboxProviders' | 'storageProviders' | 'mcpCredentials' | 'eventWebhooks';

export type BackedUpTable = {
  /** Export reads every row of the organization from it (by `organization_id`); restore inserts into it. */
  table: PgTable;
  /** The list of entries its rows become in the backup file (domain/configuration-backup/format.ts). */
  file: string;
  /** The words of the restore's failure, "Restoring the <resource> failed; nothing was restored". */
  resource: string;
  /** Its rows carry a write-only secret that the restore asks for (`requiredCredentials[].kind`). */
  credential?: CredentialKind;
};

/**
 * The backed-up tables. A table's key is its name in every part of the backup:
 * `readOrganization` (export.ts) reads its rows into `rows.<key>`, `countEntries` (plan.ts)
 * counts its entries as `counts.<key>` (the preview's and the restore's `counts`), and
 * `buildRows` (restore.ts) builds its new rows as `rows.<key>`. The order is the restore's insert
 * order, parents first (`projects` is inserted on its own, before members are provisioned).
 */
export const BACKED_UP = {
  projects: { table: projects, file: 'projects[]', resource: 'projects' },
  modelProviders: { table: modelProviders, file: 'modelProviders[]', resource: 'model providers', credential: 'modelProviders' },
  sandboxProviders: { table: sandboxProviders, file: 'sandboxProviders[]', resource: 'sandbox providers', credential: 'sandboxProviders' },
  storageProviders: { table: storageProviders, file: 'storageProviders[]', resource: 'storage providers', credential: 'storageProviders' },
  mcpServers: { table: mcpServers, file: 'mcpServers[]', resource: 'MCP servers' },
  mcpServerVersions: { table: mcpServerVersions, file: 'mcpServers[].versions[]', resource: 'MCP server versions' },
  mcpCredentials: { table: mcpCredentials, file: 'mcpCredentials[]', resource: 'MCP credentials', credential: 'mcpCredentials' },
  mcpCredentialPolicies: { table: mcpCredentialPolicies, file: 'mcpCredentialPolicies[]', resource: 'MCP credential policies' },
  mcpCredentialPolicyVersions: { table: mcpCredentialPolicyVersions, file: 'mcpCredentialPolicies[].versions[]', resource: 'MCP credential policy versions' },
  modelPresets: { table: modelPresets, file: 'projects[].modelPresets[]', resource: 'model presets' },
  skills: { table: skills, file: 'projects[].skills[]', resource: 'Skills' },
  skillVersions: { table: skillVersions, file: 'projects[].skills[].versions[]', resource: 'Skill versions' },
  mcpToolsets: { table: mcpToolsets, file: 'projects[].mcpToolsets[]', resource: 'MCP toolsets' },
  mcpToolsetVersions: { table: mcpToolsetVersions, file: 'projects[].mcpToolsets[].versions[]', resource: 'MCP toolset versions' },
  agents: { table: agents, file: 'projects[].agents[]', resource: 'agents' },
  agentVersions: { table: agentVersions, file: 'projects[].agents[].versions[]', resource: 'agent versions' },
  eventWebhooks: { table: eventWebhooks, file: 'projects[].eventWebhooks[]', resource: 'event webhooks', credential: 'eventWebhooks' },
  schedules: { table: schedules, file: 'projects[].schedules[]', resource: 'schedules' },
  memoryStores: { table: memoryStores, file: 'projects[].memoryStores[]', resource: 'memory stores' },
} as const satisfies Record<string, BackedUpTable>;

export type BackedUpName = keyof typeof BACKED_UP;
export const BACKED_UP_NAMES = Object.keys(BACKED_UP) as BackedUpName[];

/**
 * The organization's tables the backup leaves out on purpose (spec 1 "Configuration backup file":
 * "Excluded: every credential and secret, members, roles, identity links, API keys, sessions,
 * runs, transcripts, events, audit trail, object-storage contents, never-published Skill
 * drafts"), by SQL table name, each with the reason in one line.
 */
export const NOT_BACKED_UP: Readonly<Record<string, string>> = {
  // Who may act: members, roles, identities and keys are never copied ("no members are added").
  organization_memberships: 'members and their organization roles',
  project_memberships: 'members and their project roles',
  principals: 'project-local identities of members and API keys; restored rows are attributed to the restoring principal',
  identities: 'identity links of people and machines that signed in',
  api_keys: 'API keys (secrets)',
  browser_sessions: 'sign-in cookie sessions (secrets)',
  installation: "the deployment's singleton owner claim; a restore always goes into the caller's existing organization",
  // Conversations and their runs.
  threads: 'conversation state of sessions',
  sessions: 'sessions (runtime data)',
  pending_turns: 'turns waiting for a busy session (runtime data)',
  session_skill_bindings: 'the Skill versions a session pinned at creation (session state)',
  messages: 'transcripts',
  context_compactions: 'summaries of compacted conversations (transcript state)',
  runs: 'runs (runtime data)',
  run_turn_reservations: "a run's durable turn budget (runtime data)",
  model_invocations: 'provider attempts of model turns (run debug data)',
  tool_calls: 'tool calls of runs (runtime data)',
  approvals: 'approval gates of runs (runtime data)',
  delegations: 'delegation relations between sessions (runtime data; the delegates of agent configs are kept)',
  delegation_calls: 'delegate and message calls of runs (runtime data)',
  harness_operation_calls: 'Harness Operation calls of runs (runtime data; the operations in agent configs are kept)',
  // Sandboxes, files and object storage.
  sandboxes: "sessions' workspace sandboxes (runtime data)",
  sandbox_commands: 'commands run in sandboxes (run debug data)',
  attachments: 'files attached to sessions and turns (object-storage contents)',
  uploads: 'standalone uploads for later turns (object-storage contents)',
  workspace_backups: 'workspace archives of sessions (object-storage contents)',
  retention_object_deletions: 'objects of purged sessions still to delete from storage (retention bookkeeping)',
  schedule_firings: 'what the firings of schedules made (runtime data)',
  usage_daily: 'token and cost totals per day, derived from model invocations (runtime data)',
  // Events, audit and request bookkeeping.
  product_events: 'the product event log (restored webhooks start at the current end of the log)',
  project_event_counters: "a project's event log position (event log bookkeeping)",
  aggregate_event_counters: 'per-resource event sequences (event log bookkeeping)',
  audit_entries: 'the audit trail',
  idempotency_records: 'stored responses of idempotent requests (request bookkeeping)',
  // Memory contents: data, like transcripts (docs/decisions/memory-stores.md); store definitions are backed up.
  memories: 'memories of memory stores (data, like transcripts)',
  memory_versions: 'versions of memories (data, like transcripts)',
  // Work in progress.
  skill_drafts: 'never-published Skill drafts',
  skill_draft_entries: 'files and folders of never-published Skill drafts',
};
