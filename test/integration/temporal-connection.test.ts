import { describe, expect, inject, it } from 'vitest';
import { parseSettings } from '../../config/settings.ts';
import { connectTemporal } from '../../temporal/client.ts';

/**
 * The TLS settings reach the real connection: the test's dev server speaks plaintext, so a
 * client told to use TLS cannot talk to it, while the same address without them can.
 */
describe('connecting with the external-cluster settings', () => {
  it('uses TLS when told to (a plaintext dev server then refuses the handshake)', async () => {
    const { address, namespace } = inject('temporal');
    const plain = await connectTemporal({ address, namespace });
    await plain.close();
    const settings = parseSettings({ TEMPORAL_ADDRESS: address, TEMPORAL_TLS: 'true' });
    await expect(
      (async () => {
        const secured = await connectTemporal({ address, namespace, security: settings.temporal.security });
        try {
          await secured.client.workflowService.getSystemInfo({});
        } finally {
          await secured.close();
        }
      })(),
    ).rejects.toThrow();
  }, 30_000);
});
