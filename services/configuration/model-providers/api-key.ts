import { ValidationError } from '../../../domain/errors.ts';
import type { CredentialKeyring } from '../../kernel/credentials/index.ts';
import { providerCredentialAad, type ModelProviderRow } from './public.ts';

/**
 * The decrypted vendor API key of a live provider, for an outbound call only: never log,
 * return or store it. A connection without a credential (for example restored from a
 * configuration file) is a 400 until a key is rotated in.
 */
export function providerApiKey(keyring: CredentialKeyring, provider: ModelProviderRow): string {
  if (provider.credentialCiphertext === null) {
    throw new ValidationError(`Model provider ${provider.key} has no credential; set one with PUT .../credential`, { providerId: provider.id });
  }
  return keyring.decrypt(provider.credentialCiphertext, providerCredentialAad(provider.id));
}
