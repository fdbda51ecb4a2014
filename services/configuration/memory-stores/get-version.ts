import { requireActor } from '../../kernel/require-actor.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { findMemoryStore } from './load.ts';
import { toMemoryVersionResponse, type MemoryView, type PublicMemoryVersion } from './public.ts';
import { findMemoryVersion } from './find-version.ts';

export async function getMemoryVersion({
  ctx,
  input,
}: {
  ctx: ServiceContext;
  input: { storeId: string; versionId: string; view?: MemoryView | undefined };
}): Promise<PublicMemoryVersion> {
  const actor = requireActor(ctx);
  const store = await findMemoryStore(ctx, actor, input.storeId);
  return toMemoryVersionResponse(await findMemoryVersion(ctx, store, input.versionId), input.view ?? 'full');
}
