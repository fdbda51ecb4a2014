import { randomUUID } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import * as v from 'valibot';
import { eventWebhooks, projects } from '../../../db/schema/index.ts';
import { ConflictError, ValidationError } from '../../../domain/errors.ts';
import { endpointOrigin, endpointUrlProblem } from '../../../domain/outbound/endpoint-url.ts';
import { CreateEventWebhookInput } from '../../../domain/webhooks/inputs.ts';
import { MAX_WEBHOOKS_PER_PROJECT } from '../../../domain/webhooks/limits.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { sealCredential, type CredentialKeyring } from '../../kernel/credentials/index.ts';
import { latestProjectPosition } from '../../kernel/events/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { notifyWebhookChanged } from './notify.ts';
import { countPendingEvents } from './pending-events.ts';
import { toEventWebhookResponse, webhookCredentialAad, type PublicEventWebhook } from './public.ts';

export type WebhookEndpointPolicy = { allowPrivateNetwork: boolean };

/** Checks an endpoint URL against the server's policy; a 400 naming `endpointUrl` otherwise. */
export function assertEndpointUrl(url: string, policy: WebhookEndpointPolicy): void {
  const problem = endpointUrlProblem(url, policy);
  if (problem) throw new ValidationError(problem, { path: 'endpointUrl' });
}

/**
 * Creates a project webhook. `deliverFrom: now` starts the cursor at the project's committed
 * tail (events committed later are delivered); `beginning` replays the whole log. The secret is
 * sealed under the server key before the transaction, bound to the new row's id.
 */
export async function createEventWebhook({
  ctx,
  keyring,
  policy,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  policy: WebhookEndpointPolicy;
  input: v.InferInput<typeof CreateEventWebhookInput>;
}): Promise<PublicEventWebhook> {
  const actor = requireActor(ctx);
  const parsed = v.parse(CreateEventWebhookInput, input);
  assertEndpointUrl(parsed.endpointUrl, policy);
  const id = randomUUID();
  const sealed = sealCredential(keyring, { plaintext: parsed.signingSecret, associatedData: webhookCredentialAad(id) });
  return withTransaction(ctx, async (tx) => {
    // The project row lock serializes creations, so two requests cannot both take the 20th place.
    await tx.db.select({ id: projects.id }).from(projects).where(eq(projects.id, actor.projectId)).for('update');
    const [existing] = await tx.db.select({ total: count() }).from(eventWebhooks).where(eq(eventWebhooks.projectId, actor.projectId));
    if ((existing?.total ?? 0) >= MAX_WEBHOOKS_PER_PROJECT) {
      throw new ConflictError(`A project can have at most ${MAX_WEBHOOKS_PER_PROJECT} event webhooks`);
    }
    const deliveredPosition = parsed.deliverFrom === 'beginning' ? 0n : await latestProjectPosition({ db: tx.db, input: { projectId: actor.projectId } });
    const now = tx.clock.now();
    const [row] = await tx.db
      .insert(eventWebhooks)
      .values({
        id,
        organizationId: actor.organizationId,
        projectId: actor.projectId,
        displayName: parsed.displayName,
        endpointUrl: parsed.endpointUrl,
        eventKinds: parsed.eventKinds,
        includeMessageContent: parsed.includeMessageContent,
        enabled: true,
        status: 'active',
        disabledReason: null,
        ...sealed,
        deliveredPosition,
        createdByPrincipalId: actor.principalId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await recordAudit(tx, {
      action: 'event_webhook.created',
      targetType: 'event_webhook',
      targetId: id,
      details: { endpointOrigin: endpointOrigin(parsed.endpointUrl), deliverFrom: parsed.deliverFrom },
    });
    await notifyWebhookChanged(tx.db, id);
    return toEventWebhookResponse(row!, { pendingEvents: await countPendingEvents(tx.db, row!), now });
  });
}
