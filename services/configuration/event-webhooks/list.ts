import type * as v from 'valibot';
import type { EventWebhookListShape } from '../../../domain/public-shapes/event-webhooks.ts';
import { asc, eq } from 'drizzle-orm';
import { eventWebhooks } from '../../../db/schema/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import type { WebhookEndpointPolicy } from './create.ts';
import { loadEventWebhook } from './load.ts';
import { countPendingEvents } from './pending-events.ts';
import { toEventWebhookResponse, type PublicEventWebhook } from './public.ts';

export type EventWebhookList = v.InferOutput<typeof EventWebhookListShape>;

/**
 * The project's webhooks, oldest first, with live delivery status. A project has at most 20,
 * so the list is one page; `pageInfo` keeps the shape of every other list.
 */
export async function listEventWebhooks({
  ctx,
  keyring,
  policy,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  policy: WebhookEndpointPolicy;
}): Promise<EventWebhookList> {
  const actor = requireActor(ctx);
  const rows = await ctx.db
    .select()
    .from(eventWebhooks)
    .where(eq(eventWebhooks.projectId, actor.projectId))
    .orderBy(asc(eventWebhooks.createdAt), asc(eventWebhooks.id));
  const now = ctx.clock.now();
  const data = await Promise.all(rows.map(async (row) => toEventWebhookResponse(row, { pendingEvents: await countPendingEvents(ctx.db, row), now })));
  return {
    data,
    pageInfo: { nextCursor: null },
    credentialEncryptionConfigured: keyring.configured,
    privateNetworkEndpointsAllowed: policy.allowPrivateNetwork,
  };
}

/** One webhook with live delivery status (a convenience beside the spec's list). */
export async function getEventWebhook({ ctx, input }: { ctx: ServiceContext; input: { webhookId: string } }): Promise<PublicEventWebhook> {
  const actor = requireActor(ctx);
  const row = await loadEventWebhook(ctx, { projectId: actor.projectId, webhookId: input.webhookId });
  return toEventWebhookResponse(row, { pendingEvents: await countPendingEvents(ctx.db, row), now: ctx.clock.now() });
}
