import * as v from 'valibot';
import { ModelProviderType } from './types.ts';

/** Keys of provider connections and presets: lowercase, 1-64 chars, safe in URLs and configs. */
export const ConfigurationKey = v.pipe(v.string('key must be a string'), v.regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'key must match ^[a-z0-9][a-z0-9_-]{0,63}$'));

export const DisplayName = v.pipe(
  v.string('displayName must be a string'),
  v.trim(),
  v.minLength(1, 'displayName must not be empty'),
  v.maxLength(200, 'displayName must be at most 200 characters'),
);

/**
 * A vendor API key: surrounding whitespace is trimmed (a common paste mistake); the rest must
 * be printable ASCII without spaces, so it is safe in an HTTP header. Every message is our own:
 * valibot's default messages would echo the value.
 */
export const ProviderApiKey = v.pipe(
  v.string('apiKey must be a string'),
  v.trim(),
  v.minLength(1, 'apiKey must not be empty'),
  v.maxLength(4096, 'apiKey must be at most 4096 characters'),
  v.regex(/^[\x21-\x7e]+$/, 'apiKey must be printable ASCII without spaces'),
);

export const CreateModelProviderInput = v.strictObject({
  key: ConfigurationKey,
  displayName: DisplayName,
  providerType: ModelProviderType,
  apiKey: ProviderApiKey,
});
export type CreateModelProviderInput = v.InferOutput<typeof CreateModelProviderInput>;

export const RotateModelProviderCredentialInput = v.strictObject({ apiKey: ProviderApiKey });
export type RotateModelProviderCredentialInput = v.InferOutput<typeof RotateModelProviderCredentialInput>;
