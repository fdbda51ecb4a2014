import { recordAudit } from '../../kernel/audit/index.ts';
import { appendProductEvent } from '../../kernel/events/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { type MemoryStoreRow } from './public.ts';

/** `memory_store.<what>` in the project feed and the audit log, in the change's transaction. */
export async function announceStore(
  tx: ServiceContext,
  store: MemoryStoreRow,
  what: 'created' | 'updated' | 'archived' | 'deleted',
  details: Record<string, unknown> = {},
) {
  await recordAudit(tx, { action: `memory_store.${what}`, targetType: 'memory_store', targetId: store.id, details: { name: store.name, ...details } });
  await appendProductEvent(tx, {
    organizationId: store.organizationId,
    projectId: store.projectId,
    aggregateType: 'memory_store',
    aggregateId: store.id,
    kind: `memory_store.${what}`,
    publicPayload: { storeId: store.id, name: store.name },
  });
}
