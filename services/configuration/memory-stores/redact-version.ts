import { eq } from 'drizzle-orm';
import { memories, memoryVersions } from '../../../db/schema/index.ts';
import { ConflictError } from '../../../domain/errors.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { findMemoryStore } from './load.ts';
import { toMemoryVersionResponse, type PublicMemoryVersion } from './public.ts';
import { findMemoryVersion } from './find-version.ts';

/**
 * Redacts a version for good: its content and path are erased from the row (not hidden), and
 * its existence, operation, author, size and SHA-256 stay, so what was there stays provable.
 * The memory's current content is its newest version's: redacting that one is refused (409;
 * change or delete the memory first). Redacting again is a no-op. Allowed in an archived store.
 */
export async function redactMemoryVersion({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { storeId: string; versionId: string };
}): Promise<PublicMemoryVersion> {
  const actor = requireActor(ctx);
  return withTransaction(ctx, async (tx) => {
    const store = await findMemoryStore(tx, actor, input.storeId, { lock: true });
    const version = await findMemoryVersion(tx, store, input.versionId, true);
    if (version.redactedAt) return toMemoryVersionResponse(version, 'basic');
    await assertNotCurrent(tx, version);
    const [row] = await tx.db
      .update(memoryVersions)
      .set({
        content: null,
        path: null,
        redactedAt: tx.clock.now(),
        redactedBy: { type: 'principal', principalId: actor.principalId, apiKeyId: actor.apiKeyId },
      })
      .where(eq(memoryVersions.id, version.id))
      .returning();
    await recordAudit(tx, {
      action: 'memory_version.redacted',
      targetType: 'memory_version',
      targetId: version.id,
      details: { storeId: store.id, memoryId: version.memoryId },
    });
    await appendProductEvent(tx, {
      organizationId: store.organizationId,
      projectId: store.projectId,
      aggregateType: 'memory_store',
      aggregateId: store.id,
      kind: 'memory_version.redacted',
      publicPayload: { storeId: store.id, memoryId: version.memoryId, versionId: version.id },
    });
    return toMemoryVersionResponse(row!, 'basic');
  });
}

/** The newest version of a live memory is its content: redacting it would leave the content readable. */
async function assertNotCurrent(tx: ServiceContext, version: { id: string; memoryId: string }) {
  const [live] = await tx.db.select({ id: memories.id }).from(memories).where(eq(memories.versionId, version.id)).limit(1);
  if (live) {
    throw new ConflictError("This is the memory's current content: update or delete the memory first, then redact the version", {
      reason: 'memory_version_current',
    });
  }
}
