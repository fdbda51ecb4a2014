import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CREDENTIAL_KEY_FILE, createKeyring, fingerprintCredential, loadCredentialKey, sealCredential } from './keyring.ts';

describe('credential keyring', () => {
  const keyring = createKeyring(randomBytes(32));

  it('round-trips a secret and never leaves it in the ciphertext', () => {
    const sealed = keyring.encrypt('sk-live-secret-value', 'model_provider:1');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('secret');
    expect(keyring.decrypt(sealed, 'model_provider:1')).toBe('sk-live-secret-value');
    expect(keyring.encrypt('sk-live-secret-value', 'model_provider:1')).not.toBe(sealed);
  });

  it('refuses a ciphertext bound to another row, tampered, or under another key', () => {
    const sealed = keyring.encrypt('value', 'model_provider:1');
    expect(() => keyring.decrypt(sealed, 'model_provider:2')).toThrow(/cannot be decrypted/);
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('AA') ? 'AB' : 'AA');
    expect(() => keyring.decrypt(tampered, 'model_provider:1')).toThrow(/cannot be decrypted/);
    expect(() => createKeyring(randomBytes(32)).decrypt(sealed, 'model_provider:1')).toThrow(/cannot be decrypted/);
    expect(() => keyring.decrypt('v0.x.y', 'model_provider:1')).toThrow(/unknown format/);
  });

  it('fingerprints are the first 12 hex characters of SHA-256', () => {
    expect(fingerprintCredential('abc')).toBe('ba7816bf8f01');
  });

  it('keyed hashes are stable per key and differ across keys', () => {
    expect(keyring.keyedHash('svc_x')).toBe(keyring.keyedHash('svc_x'));
    expect(keyring.keyedHash('svc_x')).not.toBe(createKeyring(randomBytes(32)).keyedHash('svc_x'));
  });

  it('seals new and rotated credentials with fingerprint and increasing version', () => {
    const first = sealCredential(keyring, { plaintext: 'key-one', associatedData: 'storage_provider:9' });
    expect(first.credentialVersion).toBe(1);
    expect(first.credentialFingerprint).toBe(fingerprintCredential('key-one'));
    expect(keyring.decrypt(first.credentialCiphertext, 'storage_provider:9')).toBe('key-one');
    const rotated = sealCredential(keyring, { plaintext: 'key-two', associatedData: 'storage_provider:9', previousVersion: first.credentialVersion });
    expect(rotated.credentialVersion).toBe(2);
    expect(rotated.credentialFingerprint).not.toBe(first.credentialFingerprint);
  });

  it('an unconfigured keyring fails with internal_error', () => {
    const none = createKeyring(null);
    expect(none.configured).toBe(false);
    expect(() => none.encrypt('x', 'y')).toThrow(expect.objectContaining({ code: 'internal_error' }));
  });
});

describe('loadCredentialKey', () => {
  it('generates the development key once into the data dir and reuses it', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-key-'));
    const first = loadCredentialKey({ configuredKey: undefined, environment: 'development', dataDir });
    const second = loadCredentialKey({ configuredKey: undefined, environment: 'development', dataDir });
    expect(first!.equals(second!)).toBe(true);
    const file = path.join(dataDir, CREDENTIAL_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(first!)).toBe(true);
  });

  it('uses the configured key, rejects a malformed one, and has none in production without one', () => {
    const key = randomBytes(32);
    expect(loadCredentialKey({ configuredKey: key.toString('base64'), environment: 'production', dataDir: '/nonexistent' })!.equals(key)).toBe(true);
    expect(() => loadCredentialKey({ configuredKey: 'c2hvcnQ=', environment: 'production', dataDir: '/x' })).toThrow(/32 bytes/);
    expect(loadCredentialKey({ configuredKey: undefined, environment: 'production', dataDir: '/x' })).toBeNull();
  });
});
