import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import { eventWebhooks } from '../../../db/schema/index.ts';
import { endpointOrigin } from '../../../domain/outbound/endpoint-url.ts';
import { RotateEventWebhookCredentialInput } from '../../../domain/webhooks/inputs.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { sealCredential, type CredentialKeyring } from '../../kernel/credentials/index.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { loadEventWebhook } from './load.ts';
import { countPendingEvents } from './pending-events.ts';
import { toEventWebhookResponse, webhookCredentialAad, type PublicEventWebhook } from './public.ts';

/**
 * Rotates the signing secret (spec 2, spec 3 rule 4). The replaced secret keeps signing every
 * delivery, beside the new one, for `previousCredentialTtlSeconds` (0 drops it at once). A
 * secret that was itself still in its grace period is dropped: at most two secrets sign.
 * Delivery is not disturbed: the pending batch, cursor and back-off stay as they are.
 */
export async function rotateEventWebhookCredential({
  ctx,
  keyring,
  input,
}: {
  ctx: ServiceContext;
  keyring: CredentialKeyring;
  input: { webhookId: string } & v.InferInput<typeof RotateEventWebhookCredentialInput>;
}): Promise<PublicEventWebhook> {
  const actor = requireActor(ctx);
  const { webhookId, ...body } = input;
  const { signingSecret, previousCredentialTtlSeconds } = v.parse(RotateEventWebhookCredentialInput, body);
  return withTransaction(ctx, async (tx) => {
    const current = await loadEventWebhook(tx, { projectId: actor.projectId, webhookId, lock: true });
    const sealed = sealCredential(keyring, {
      plaintext: signingSecret,
      associatedData: webhookCredentialAad(current.id),
      previousVersion: current.credentialVersion,
    });
    const now = tx.clock.now();
    const keepPrevious = previousCredentialTtlSeconds > 0 && current.credentialCiphertext !== null;
    const [row] = await tx.db
      .update(eventWebhooks)
      .set({
        ...sealed,
        previousCredentialCiphertext: keepPrevious ? current.credentialCiphertext : null,
        previousCredentialExpiresAt: keepPrevious ? new Date(now.getTime() + previousCredentialTtlSeconds * 1000) : null,
        updatedAt: now,
      })
      .where(eq(eventWebhooks.id, current.id))
      .returning();
    await recordAudit(tx, {
      action: 'event_webhook.credential_rotated',
      targetType: 'event_webhook',
      targetId: current.id,
      details: { endpointOrigin: endpointOrigin(current.endpointUrl), credentialVersion: sealed.credentialVersion, previousCredentialTtlSeconds },
    });
    return toEventWebhookResponse(row!, { pendingEvents: await countPendingEvents(tx.db, row!), now });
  });
}
