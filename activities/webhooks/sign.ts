import { createHmac } from 'node:crypto';
import { signingKeyBase64 } from '../../domain/webhooks/signing-secret.ts';

/**
 * Standard Webhooks signatures (spec 3 rule 4): HMAC-SHA256 over `<id>.<timestamp>.<body>`
 * keyed with the base64-decoded part of each `whsec_` secret, as space-separated `v1,<base64>`
 * values, one per secret (two during a rotation's grace period).
 */
export function webhookSignatureHeader(input: { secrets: string[]; webhookId: string; timestamp: number; body: string }): string {
  const content = `${input.webhookId}.${input.timestamp}.${input.body}`;
  return input.secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', Buffer.from(signingKeyBase64(secret), 'base64'))
          .update(content, 'utf8')
          .digest('base64')}`,
    )
    .join(' ');
}
