import * as v from 'valibot';
import type { AttachedMemoryStore } from '../../../domain/memory/index.ts';
import { NotFoundError, ValidationError } from '../../../domain/errors.ts';
import type { UploadRef } from '../../../domain/attachments/file-input.ts';
import { userMessageTurn, type TurnFromMessage } from './content.ts';
import { isOurId } from './ids.ts';
import type { SessionStatus } from '../../../domain/runs/states.ts';
import type { CmaAgent, CmaThreadAgent } from './agents.ts';

/**
 * Claude Managed Agents sessions over ours (docs/decisions/anthropic-compat-sessions.md): the
 * create body, the status mapping and the session object.
 */

export const CreateSessionParams = v.strictObject({
  agent: v.union([
    v.pipe(v.string(), v.minLength(1)),
    v.strictObject(
      { type: v.string(), id: v.string(), version: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1)))) },
      'must be an agent id or {type: "agent", id, version?}',
    ),
  ]),
  environment_id: v.pipe(v.string(), v.minLength(1)),
  initial_events: v.optional(v.nullable(v.pipe(v.array(v.record(v.string(), v.unknown())), v.maxLength(50, 'holds at most 50 events')))),
  metadata: v.optional(v.nullable(v.record(v.string(), v.string()))),
  resources: v.optional(v.nullable(v.array(v.unknown()))),
  title: v.optional(v.nullable(v.string())),
  vault_ids: v.optional(v.nullable(v.array(v.string()))),
  budget: v.optional(v.unknown()),
});
export type CreateSessionParams = v.InferOutput<typeof CreateSessionParams>;

/** `POST /v1/sessions/{id}`: title and metadata; session-local agent changes, budgets and vaults are refused. */
export const UpdateSessionParams = v.strictObject({
  title: v.optional(v.nullable(v.string())),
  metadata: v.optional(v.nullable(v.record(v.string(), v.nullable(v.string())))),
  agent: v.optional(v.unknown()),
  budget: v.optional(v.unknown()),
  vault_ids: v.optional(v.nullable(v.array(v.string()))),
});
export type UpdateSessionParams = v.InferOutput<typeof UpdateSessionParams>;

export function checkSessionUpdate(params: UpdateSessionParams): void {
  if (params.agent !== undefined && params.agent !== null)
    fail('agent', "a session's own tools and MCP servers are not supported by this server; publish an agent version");
  if (params.budget !== undefined && params.budget !== null) fail('budget', 'budgets are not supported by this server yet');
  if (params.vault_ids && params.vault_ids.length > 0) fail('vault_ids', 'vaults are not supported by this server');
}

const fail = (field: string, message: string): never => {
  throw new ValidationError(`${field}: ${message}`, { path: `body.${field}` });
};

/** The agent a session pins: its id and, when given, its version number (else the latest). */
export function agentRefOf(agent: CreateSessionParams['agent']): { agentId: string; version: number | null } {
  if (typeof agent === 'string') return { agentId: agent, version: null };
  if (agent.type === 'agent_with_overrides') fail('agent', 'agent_with_overrides is not supported by this server; publish a version with the overrides');
  if (agent.type !== 'agent') fail('agent.type', 'must be "agent"');
  return { agentId: agent.id, version: agent.version ?? null };
}

/** Checks what a session create cannot honour, each a 400 naming the field. */
export function checkSessionExtras(params: CreateSessionParams): void {
  if (params.vault_ids && params.vault_ids.length > 0) fail('vault_ids', 'vaults are not supported by this server');
  if (params.budget !== undefined && params.budget !== null) fail('budget', 'budgets are not supported by this server yet');
  if (params.metadata && Object.keys(params.metadata).length > 16) fail('metadata', 'holds at most 16 pairs');
}

/** Initial events: `user.message` only (outcomes are not supported). */
export function initialMessagesOf(params: CreateSessionParams): TurnFromMessage[] {
  const messages = (params.initial_events ?? []).map((event, index) => {
    if (event.type !== 'user.message') fail(`initial_events.${index}.type`, `${String(event.type)} is not supported as an initial event by this server`);
    return userMessageTurn(event, `initial_events.${index}`);
  });
  const files = fileResourcesOf(params.resources ?? []);
  if (files.length === 0) return messages;
  // Our files arrive with a turn: the session's file resources are the first turn's files.
  if (messages.length === 0) fail('resources', 'file resources arrive with the first turn here: send them with an initial user.message');
  return [{ text: messages[0]!.text, files: [...files, ...messages[0]!.files] }, ...messages.slice(1)];
}

const FileResource = v.strictObject({ type: v.literal('file'), file_id: v.string(), mount_path: v.optional(v.nullable(v.string())) });
const MemoryStoreResource = v.strictObject({
  type: v.literal('memory_store'),
  memory_store_id: v.string(),
  access: v.optional(v.nullable(v.string())),
  instructions: v.optional(v.nullable(v.string())),
});
const isMemoryStoreResource = (resource: unknown) => (resource as { type?: unknown } | null)?.type === 'memory_store';

/**
 * `resources[]` of type `memory_store` as our `memoryStores` (the core checks the store, the
 * access and the instructions' length); a store id that cannot be ours is a 404 as natively.
 */
export function memoryStoreResourcesOf(params: CreateSessionParams): Array<{ storeId: string; access?: string; instructions?: string | null }> {
  return (params.resources ?? []).flatMap((resource, index) => {
    if (!isMemoryStoreResource(resource)) return [];
    const parsed = v.safeParse(MemoryStoreResource, resource);
    if (!parsed.success) return fail(`resources.${index}`, 'a memory_store resource is {type: "memory_store", memory_store_id, access?, instructions?}');
    const { memory_store_id: storeId, access, instructions } = parsed.output;
    if (!isOurId(storeId)) throw new NotFoundError('Memory store not found', { path: `body.resources.${index}.memory_store_id` });
    return [{ storeId: storeId.toLowerCase(), ...(access ? { access } : {}), ...(instructions != null ? { instructions } : {}) }];
  });
}

/** `resources[]` of type `file` as upload references; memory stores are read apart; other kinds and mount paths are refused. */
function fileResourcesOf(resources: unknown[]): UploadRef[] {
  return resources.flatMap((resource, index) => {
    if (isMemoryStoreResource(resource)) return [];
    const parsed = v.safeParse(FileResource, resource);
    if (!parsed.success) return fail(`resources.${index}`, 'only {type: "file", file_id} resources are supported by this server');
    if (parsed.output.mount_path) fail(`resources.${index}.mount_path`, "files are placed at the turn's attachment path here; mount paths are not supported");
    if (!isOurId(parsed.output.file_id)) fail(`resources.${index}.file_id`, 'no uploaded file with that id');
    return [{ uploadId: parsed.output.file_id.toLowerCase() }];
  });
}

/** A session's CMA status from ours: archived is terminated; anything settled or waiting for the caller is idle. */
export function statusOf(session: { status: SessionStatus; archivedAt: Date | null }): 'idle' | 'running' | 'rescheduling' | 'terminated' {
  if (session.archivedAt) return 'terminated';
  switch (session.status) {
    case 'queued':
    case 'running':
      return 'running';
    case 'retry_scheduled':
      return 'rescheduling';
    default:
      return 'idle';
  }
}

export type SessionRecord = {
  id: string;
  title: string | null;
  status: SessionStatus;
  archivedAt: Date | null;
  createdAt: Date;
  lastActivityAt: Date;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The memory stores it attached (absent on records that predate them). */
  memoryStores?: AttachedMemoryStore[];
};

/** `BetaManagedAgentsSession`. */
export function renderSession(input: {
  session: SessionRecord;
  agent: CmaAgent;
  /** The coordinator's roster as full agent definitions (null when the agent is not a coordinator). */
  roster: CmaThreadAgent[] | null;
  environmentId: string;
  metadata: Record<string, string>;
  now: Date;
}) {
  const { session, agent } = input;
  const { created_at: _created, updated_at: _updated, archived_at: _archived, metadata: _metadata, multiagent: _references, ...snapshot } = agent;
  return {
    id: session.id,
    type: 'session' as const,
    agent: { ...snapshot, multiagent: input.roster ? { type: 'coordinator' as const, agents: input.roster } : null },
    environment_id: input.environmentId,
    status: statusOf(session),
    title: session.title,
    metadata: input.metadata,
    resources: (session.memoryStores ?? []).map((store) => ({
      type: 'memory_store' as const,
      memory_store_id: store.storeId,
      access: store.access,
      name: store.name,
      description: store.description,
      instructions: store.instructions,
      mount_path: store.mountPath.replace(/\/$/, ''),
    })),
    vault_ids: [],
    outcome_evaluations: [],
    budget: null,
    usage: {
      input_tokens: session.inputTokens,
      output_tokens: session.outputTokens,
      cache_read_input_tokens: session.cacheReadTokens,
      cache_creation_input_tokens: session.cacheWriteTokens,
    },
    stats: { duration_seconds: Math.max(0, (input.now.getTime() - session.createdAt.getTime()) / 1000) },
    created_at: session.createdAt.toISOString(),
    updated_at: session.lastActivityAt.toISOString(),
    archived_at: session.archivedAt ? session.archivedAt.toISOString() : null,
  };
}
export type CmaSession = ReturnType<typeof renderSession>;
