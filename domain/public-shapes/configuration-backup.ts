import * as v from 'valibot';
import { Id } from './common.ts';

/** Restore preview and result (spec 2 "Configuration backup and restore"). */
const Counts = v.record(v.string(), v.pipe(v.number(), v.integer(), v.minValue(0)));
const CREDENTIAL_KINDS = ['modelProviders', 'sandboxProviders', 'storageProviders', 'mcpCredentials', 'eventWebhooks'] as const;
const PROJECT_ACTIONS = ['create', 'fill_empty_project', 'blocked'] as const;

/** What a restore would do; `ready` is true when nothing blocks it and no credential is missing. */
export const RestorePreviewShape = v.strictObject({
  projects: v.array(v.strictObject({ slug: v.string(), name: v.string(), action: v.picklist(PROJECT_ACTIONS), reason: v.optional(v.string()) })),
  conflicts: v.array(v.strictObject({ resource: v.string(), id: v.string(), key: v.optional(v.string()), message: v.string() })),
  warnings: v.array(v.strictObject({ code: v.string(), id: v.string(), message: v.string() })),
  counts: Counts,
  /** The write-only secrets the restore body must supply, by kind and backed-up id. */
  requiredCredentials: v.array(
    v.strictObject({
      kind: v.picklist(CREDENTIAL_KINDS),
      id: v.string(),
      key: v.optional(v.string()),
      displayName: v.string(),
      credentialFingerprint: v.nullable(v.string()),
      value: v.picklist(['string', 'accessKeyPair', 'signingSecret']),
    }),
  ),
  ready: v.boolean(),
});

/** The restored projects (new ids) and how many rows of each kind were written. */
export const RestoreResultShape = v.strictObject({
  projects: v.array(v.strictObject({ id: Id, slug: v.string(), name: v.string(), action: v.picklist(['create', 'fill_empty_project']) })),
  counts: Counts,
});
