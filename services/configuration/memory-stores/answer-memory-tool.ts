import { and, asc, eq, gt, like } from 'drizzle-orm';
import * as v from 'valibot';
import { memories, memoryVersions, type MemoryAuthor } from '../../../db/schema/index.ts';
import { DomainError } from '../../../domain/errors.ts';
import { likeLiteral, MemoryContent, MemoryPath, memoryPrefixProblem, MEMORY_TOOL_NAMES, type AttachedMemoryStore } from '../../../domain/memory/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findMemoryStore } from './load.ts';
import { applyMemoryChange } from './write-memory.ts';

/** What a memory tool answers the model: a value, or an error message it can act on (never a run failure). */
export type MemoryToolAnswer = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

const LIST_PAGE = 100;
const Sha = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'expectedContentSha256 must be 64 lowercase hex digits'));
const Arguments = {
  [MEMORY_TOOL_NAMES.list]: v.object({ store: v.string(), pathPrefix: v.optional(v.string()), cursor: v.optional(v.string()) }),
  [MEMORY_TOOL_NAMES.read]: v.object({ store: v.string(), path: MemoryPath }),
  [MEMORY_TOOL_NAMES.write]: v.object({ store: v.string(), path: MemoryPath, content: MemoryContent, expectedContentSha256: v.optional(Sha) }),
  [MEMORY_TOOL_NAMES.remove]: v.object({ store: v.string(), path: MemoryPath, expectedContentSha256: v.optional(Sha) }),
};

/**
 * The answer to a run's memory tool call (for the runtime; no actor), on the stores its session
 * attached (docs/decisions/memory-stores.md). Writes are versions written by the session's run,
 * each in its own transaction keyed by the tool call (`tool:<toolCallId>`), so a retried call
 * finds the version it wrote instead of writing twice. A stale `expectedContentSha256`, an
 * archived or deleted store, a read-only attachment or a bad path come back as error messages.
 */
export async function answerMemoryTool({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: {
    run: { id: string; sessionId: string; organizationId: string; projectId: string };
    stores: readonly AttachedMemoryStore[];
    toolCallId: string;
    toolName: string;
    arguments: unknown;
  };
}): Promise<MemoryToolAnswer> {
  const schema = Arguments[input.toolName as keyof typeof Arguments];
  if (!schema) return { ok: false, message: `${input.toolName} is not a memory tool.` };
  const parsed = v.safeParse(schema, input.arguments);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const at = issue.path?.map((entry) => entry.key).join('.');
    return { ok: false, message: `${input.toolName}: ${at ? `${at}: ` : ''}${issue.message}` };
  }
  const args = parsed.output as { store: string; path?: string; content?: string; expectedContentSha256?: string; pathPrefix?: string; cursor?: string };
  const attached = input.stores.find((store) => store.mount === args.store);
  if (!attached)
    return { ok: false, message: `This session has no memory store "${args.store}"; it has ${input.stores.map((s) => `"${s.mount}"`).join(', ')}.` };
  const scope = { organizationId: input.run.organizationId, projectId: input.run.projectId };
  try {
    if (input.toolName === MEMORY_TOOL_NAMES.list) return await list(ctx, scope, attached, args.pathPrefix, args.cursor);
    if (input.toolName === MEMORY_TOOL_NAMES.read) return await read(ctx, scope, attached, args.path!);
    if (attached.access === 'read_only') return { ok: false, message: `The memory store "${attached.mount}" is attached read-only.` };
    const author: MemoryAuthor = { type: 'session', sessionId: input.run.sessionId, runId: input.run.id };
    return await write(ctx, scope, attached, author, `tool:${input.toolCallId}`, {
      path: args.path!,
      content: input.toolName === MEMORY_TOOL_NAMES.write ? args.content! : null,
      expected: args.expectedContentSha256,
    });
  } catch (error) {
    // Conflicts, a gone or archived store: the model reads why and decides.
    if (error instanceof DomainError) return { ok: false, message: toolMessage(error) };
    throw error;
  }
}

function toolMessage(error: DomainError): string {
  const details = (error.details ?? {}) as Record<string, unknown>;
  if (details.reason === 'memory_precondition_failed') {
    return `The memory changed since you read it (its contentSha256 is now ${String(details.currentContentSha256)}): nothing was written. Read it again, merge your change and write it with the new hash.`;
  }
  if (error.code === 'not_found') return 'The memory store no longer exists.';
  return error.message;
}

async function list(
  ctx: ServiceContext,
  scope: Scope,
  attached: AttachedMemoryStore,
  pathPrefix: string | undefined,
  cursor: string | undefined,
): Promise<MemoryToolAnswer> {
  if (pathPrefix !== undefined && memoryPrefixProblem(pathPrefix)) return { ok: false, message: `pathPrefix ${memoryPrefixProblem(pathPrefix)}` };
  const store = await findMemoryStore(ctx, scope, attached.storeId);
  const prefix = pathPrefix ?? '/';
  const rows = await ctx.db
    .select({ path: memories.path, contentSizeBytes: memories.contentSizeBytes, contentSha256: memories.contentSha256, updatedAt: memories.updatedAt })
    .from(memories)
    .where(
      and(
        eq(memories.storeId, store.id),
        prefix === '/' ? undefined : like(memories.path, `${likeLiteral(prefix)}%`),
        cursor ? gt(memories.path, cursor) : undefined,
      ),
    )
    .orderBy(asc(memories.path))
    .limit(LIST_PAGE + 1);
  const page = rows.slice(0, LIST_PAGE);
  return {
    ok: true,
    value: {
      store: attached.mount,
      memories: page.map((row) => ({
        path: row.path,
        sizeBytes: row.contentSizeBytes,
        contentSha256: row.contentSha256,
        updatedAt: row.updatedAt.toISOString(),
      })),
      nextCursor: rows.length > LIST_PAGE ? page.at(-1)!.path : null,
    },
  };
}

async function read(ctx: ServiceContext, scope: Scope, attached: AttachedMemoryStore, path: string): Promise<MemoryToolAnswer> {
  const store = await findMemoryStore(ctx, scope, attached.storeId);
  const [row] = await ctx.db
    .select()
    .from(memories)
    .where(and(eq(memories.storeId, store.id), eq(memories.path, path)));
  if (!row) return { ok: false, message: `There is no memory at ${path} in "${attached.mount}".` };
  return {
    ok: true,
    value: { store: attached.mount, path: row.path, content: row.content, contentSha256: row.contentSha256, updatedAt: row.updatedAt.toISOString() },
  };
}

type Scope = { organizationId: string; projectId: string };

async function write(
  ctx: ServiceContext,
  scope: Scope,
  attached: AttachedMemoryStore,
  author: MemoryAuthor,
  sourceKey: string,
  change: { path: string; content: string | null; expected: string | undefined },
): Promise<MemoryToolAnswer> {
  return withTransaction(ctx, async (tx) => {
    const store = await findMemoryStore(tx, scope, attached.storeId, { lock: true, writable: true });
    const done = (version: { id: string; operation: string; path: string | null; contentSha256: string | null }) => ({
      ok: true as const,
      value: {
        store: attached.mount,
        path: version.path ?? change.path,
        operation: version.operation,
        versionId: version.id,
        contentSha256: version.contentSha256,
      },
    });
    // A retry of a call whose write landed: the same answer, no second version.
    const [earlier] = await tx.db
      .select()
      .from(memoryVersions)
      .where(and(eq(memoryVersions.storeId, store.id), eq(memoryVersions.sourceKey, sourceKey)));
    if (earlier) return done(earlier);
    const [current] = await tx.db
      .select()
      .from(memories)
      .where(and(eq(memories.storeId, store.id), eq(memories.path, change.path)));
    if (change.content === null) {
      if (!current) return { ok: false as const, message: `There is no memory at ${change.path} in "${attached.mount}".` };
      const { version } = await applyMemoryChange(tx, {
        store,
        author,
        sourceKey,
        change: { kind: 'delete', memory: current, expectedSha256: change.expected },
      });
      return done(version!);
    }
    if (!current) {
      if (change.expected !== undefined) {
        return { ok: false as const, message: `There is no memory at ${change.path} any more: it was deleted since you read it. Nothing was written.` };
      }
      const { version } = await applyMemoryChange(tx, { store, author, sourceKey, change: { kind: 'create', path: change.path, content: change.content } });
      return done(version!);
    }
    const { memory, version } = await applyMemoryChange(tx, {
      store,
      author,
      sourceKey,
      change: { kind: 'update', memory: current, content: change.content, expectedSha256: change.expected },
    });
    // Unchanged content writes no version: the memory already says this.
    return version ? done(version) : done({ id: memory!.versionId, operation: 'unchanged', path: memory!.path, contentSha256: memory!.contentSha256 });
  });
}
