import { describe, expect, it } from 'vitest';
import { isSensitivePropertyName, normalizePropertyName, sensitiveWordIn } from './sensitive-names.ts';

describe('sensitive property names', () => {
  it('normalize by lowercasing and dropping "_", "-", "." and spaces', () => {
    expect(normalizePropertyName('X-API-Key')).toBe('xapikey');
    expect(normalizePropertyName('client.secret')).toBe('clientsecret');
    expect(normalizePropertyName('Access Token')).toBe('accesstoken');
  });

  const rejected: Array<[name: string, word: string]> = [
    ['token', 'token'],
    ['Token', 'token'],
    ['apiKey', 'apikey'],
    ['api_key', 'apikey'],
    ['X-API-Key', 'apikey'],
    ['authorization', 'authorization'],
    ['Authorization', 'authorization'],
    ['authorizationUrl', 'authorization'],
    ['password', 'password'],
    ['userPassword', 'password'],
    ['password_hash', 'password'],
    ['passwd', 'passwd'],
    ['passphrase', 'passphrase'],
    ['secret', 'secret'],
    ['clientSecret', 'secret'],
    ['client.secret', 'secret'],
    ['SECRET_KEY', 'secret'],
    ['githubToken', 'token'],
    ['access_token', 'token'],
    ['refresh-token', 'token'],
    ['id.token', 'token'],
    ['nextPageToken', 'token'],
    ['sessionCookie', 'cookie'],
    ['set-cookie', 'cookie'],
    ['credentials', 'credential'],
    ['dbCredential', 'credential'],
    ['privateKey', 'privatekey'],
    ['private_key_pem', 'privatekey'],
    ['auth', 'auth'],
    ['basicAuth', 'auth'],
    ['awsAccessKey', 'accesskey'],
    ['signing_key', 'signingkey'],
    ['encryptionKey', 'encryptionkey'],
  ];

  it.each(rejected)('%s is sensitive (%s)', (name, word) => {
    expect(sensitiveWordIn(name)).toBe(word);
  });

  const accepted = [
    'maxTokens',
    'max_tokens',
    'tokenCount',
    'totalTokens',
    'tokens',
    'tokenizer',
    'author',
    'authorName',
    'authenticated',
    'key',
    'keyName',
    'sortKey',
    'idempotencyKey',
    'publicKey',
    'passage',
    'sessionId',
    'query',
    'user',
  ];

  it.each(accepted)('%s is not sensitive', (name) => {
    expect(isSensitivePropertyName(name)).toBe(false);
  });
});
