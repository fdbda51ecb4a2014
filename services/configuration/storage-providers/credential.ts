import type { StorageCredential } from '../../../domain/storage/provider-input.ts';
import { sealCredential, type CredentialKeyring, type SealedCredential } from '../../kernel/credentials/index.ts';
import { storageCredentialAad, type StorageProviderRow } from './public.ts';

/**
 * The access key pair (and session token) is sealed as one JSON credential, so rotation replaces
 * all parts at once and the fingerprint covers the pair.
 */
export function sealStorageCredential(
  keyring: CredentialKeyring,
  input: { providerId: string; credential: StorageCredential; previousVersion?: number },
): SealedCredential {
  const plaintext = JSON.stringify({
    accessKeyId: input.credential.accessKeyId,
    secretAccessKey: input.credential.secretAccessKey,
    sessionToken: input.credential.sessionToken ?? null,
  });
  return sealCredential(keyring, {
    plaintext,
    associatedData: storageCredentialAad(input.providerId),
    ...(input.previousVersion !== undefined ? { previousVersion: input.previousVersion } : {}),
  });
}

export function openStorageCredential(keyring: CredentialKeyring, row: Pick<StorageProviderRow, 'id' | 'credentialCiphertext'>): StorageCredential {
  if (!row.credentialCiphertext) throw new Error('The storage provider has no credential');
  return JSON.parse(keyring.decrypt(row.credentialCiphertext, storageCredentialAad(row.id))) as StorageCredential;
}
