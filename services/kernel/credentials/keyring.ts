import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Settings } from '../../../config/settings.ts';
import { InternalConfigurationError } from '../../../domain/errors.ts';

/**
 * Credential encryption shared by every connection that stores a secret (model, sandbox and
 * storage providers, MCP credentials, webhook signing secrets) and the keyed hash of API keys.
 *
 * Ciphertext format: `v1.<iv>.<ciphertext||tag>` (base64url), AES-256-GCM with a random 96-bit
 * IV. The associated data binds a ciphertext to its owner (for example `model_provider:<id>`),
 * so a ciphertext copied onto another row fails to decrypt.
 */
export type CredentialKeyring = {
  configured: boolean;
  encrypt(plaintext: string, associatedData: string): string;
  decrypt(ciphertext: string, associatedData: string): string;
  /** Keyed hash for secrets we only compare (API keys). */
  keyedHash(secret: string): string;
};

const CIPHERTEXT_VERSION = 'v1';
export const CREDENTIAL_KEY_FILE = 'credential-encryption.key';

/** First 12 hex characters of the SHA-256 of a credential, shown instead of the credential. */
export function fingerprintCredential(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex').slice(0, 12);
}

export function createKeyring(key: Buffer | null): CredentialKeyring {
  if (!key) return unconfiguredKeyring;
  if (key.length !== 32) throw new Error('The credential encryption key must be 32 bytes');
  const encryptionKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'svc credential encryption v1', 32));
  const hashKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'svc api key hash v1', 32));
  return {
    configured: true,
    encrypt(plaintext, associatedData) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${CIPHERTEXT_VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    decrypt(ciphertext, associatedData) {
      const [version, ivText, bodyText] = ciphertext.split('.');
      if (version !== CIPHERTEXT_VERSION || !ivText || !bodyText) {
        throw new InternalConfigurationError('A stored credential has an unknown format');
      }
      const body = Buffer.from(bodyText, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, Buffer.from(ivText, 'base64url'));
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - 16));
      try {
        return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
      } catch {
        // Wrong server key or a tampered row; never echo the ciphertext.
        throw new InternalConfigurationError('A stored credential cannot be decrypted with the configured key');
      }
    },
    keyedHash(secret) {
      return createHmac('sha256', hashKey).update(secret, 'utf8').digest('hex');
    },
  };
}

const notConfigured = () => {
  throw new InternalConfigurationError('Platform credential encryption is not configured');
};
const unconfiguredKeyring: CredentialKeyring = {
  configured: false,
  encrypt: notConfigured,
  decrypt: notConfigured,
  keyedHash: notConfigured,
};

/**
 * The server key: `SVC_CREDENTIAL_ENCRYPTION_KEY` (base64 of 32 bytes) when set; in
 * development, otherwise generated once into the data directory and reused on every start
 * (created exclusively, so two processes starting together agree on one key).
 */
export function loadCredentialKey(options: { configuredKey: string | undefined; environment: 'development' | 'production'; dataDir: string }): Buffer | null {
  if (options.configuredKey) return decodeKey(options.configuredKey, 'SVC_CREDENTIAL_ENCRYPTION_KEY');
  if (options.environment === 'production') return null;
  const file = path.join(options.dataDir, CREDENTIAL_KEY_FILE);
  // The data dir is this user's alone (issue 28); the key file is 0600.
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return decodeKey(fs.readFileSync(file, 'utf8').trim(), file);
}

function decodeKey(text: string, source: string): Buffer {
  const key = Buffer.from(text, 'base64');
  if (key.length !== 32 || key.toString('base64') !== text.replace(/\s+/g, '')) {
    throw new Error(`${source} must be the base64 encoding of exactly 32 bytes`);
  }
  return key;
}

/** What a credential-bearing row stores: see `credentialColumns()` in db/schema/columns.ts. */
export type SealedCredential = { credentialCiphertext: string; credentialFingerprint: string; credentialVersion: number };

/**
 * Seals a new or rotated credential for the row `associatedData` names: ciphertext, the
 * 12-character fingerprint the API shows, and the next credential version (1 for a new row).
 */
export function sealCredential(keyring: CredentialKeyring, input: { plaintext: string; associatedData: string; previousVersion?: number }): SealedCredential {
  return {
    credentialCiphertext: keyring.encrypt(input.plaintext, input.associatedData),
    credentialFingerprint: fingerprintCredential(input.plaintext),
    credentialVersion: (input.previousVersion ?? 0) + 1,
  };
}

/** The server's keyring from its settings: the one place API, worker and scripts build it. */
export function keyringFromSettings(settings: Pick<Settings, 'credentialEncryptionKey' | 'environment' | 'dataDir'>): CredentialKeyring {
  return createKeyring(loadCredentialKey({ configuredKey: settings.credentialEncryptionKey, environment: settings.environment, dataDir: settings.dataDir }));
}
