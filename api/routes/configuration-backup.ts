import { Hono } from 'hono';
import * as v from 'valibot';
import { assertOwnOrganization } from '../../services/operations/configuration-backup/index.ts';
import { exportConfiguration } from '../../services/operations/configuration-backup/index.ts';
import { previewRestore } from '../../services/operations/configuration-backup/index.ts';
import { restoreConfiguration, type RestoreDeps } from '../../services/operations/configuration-backup/index.ts';
import type { AppDeps } from '../deps.ts';
import type { AppEnv } from '../env.ts';
import { route } from '../openapi/route-doc.ts';
import { Uuid, validBody, validParams } from '../validation.ts';
import { RestorePreviewShape, RestoreResultShape } from '../../domain/public-shapes/configuration-backup.ts';

const Params = v.object({ organizationId: Uuid });
const PreviewBody = v.strictObject({ backup: v.unknown() });
const RestoreBody = v.strictObject({ backup: v.unknown(), credentials: v.optional(v.unknown()) });
// Backups carry Skill files; they may be large (the app's ceiling is 40 MiB).
const MAX_BACKUP_BYTES = 40 * 1024 * 1024;

/** Spec 2 "Configuration backup and restore": organization owners and admins, or keys with `project:admin`. */
export function configurationBackupRoutes(deps: AppDeps) {
  const restoreDeps: RestoreDeps = {
    keyring: deps.keyring,
    allowPrivateNetwork: deps.settings.outboundAllowPrivateNetwork,
    deploymentPresetKeys: new Set(deps.deploymentPresets.map((preset) => preset.key)),
    snapshotIds: new Set(deps.sandboxSnapshots.map((snapshot) => snapshot.id)),
    schedules: { scheduleBackend: deps.scheduleBackend, database: deps.database.db },
  };
  return new Hono<AppEnv>()
    .get(
      '/organizations/:organizationId/configuration-backup',
      route({
        summary: "Download the organization's configuration backup (no credentials)",
        scopes: ['project:admin'],
        params: Params,
        responses: { 200: { description: 'The backup file (`svc.organization-configuration`, format version 1)', content: 'file' } },
      }),
      async (c) => {
        const { organizationId } = validParams(c, Params);
        const { file, fileName } = await exportConfiguration({ ctx: c.var.ctx, input: { organizationId } });
        c.header('Content-Disposition', `attachment; filename="${fileName}"`);
        c.header('Content-Type', 'application/json; charset=utf-8');
        return c.body(`${JSON.stringify(file, null, 2)}\n`);
      },
    )
    .post(
      '/organizations/:organizationId/configuration-restore/preview',
      route({
        summary: 'Preview a restore; changes nothing',
        transaction: 'none',
        scopes: ['project:admin'],
        params: Params,
        body: PreviewBody,
        responses: { 200: { description: 'Projects with their action, conflicts and warnings', schema: RestorePreviewShape } },
      }),
      async (c) => {
        const { organizationId } = validParams(c, Params);
        // Before the (large) body is read: another organization is 403 whatever the body holds.
        assertOwnOrganization(c.var.actor, organizationId);
        const body = await validBody(c, PreviewBody, { maxBytes: MAX_BACKUP_BYTES });
        return c.json(await previewRestore({ ctx: c.var.ctx, deps: restoreDeps, input: { organizationId, backup: body.backup } }));
      },
    )
    .post(
      '/organizations/:organizationId/configuration-restore',
      route({
        summary: 'Restore a backup into new or empty projects',
        scopes: ['project:admin'],
        params: Params,
        body: RestoreBody,
        responses: { 201: { description: 'The restored projects and counts', schema: RestoreResultShape } },
      }),
      async (c) => {
        const { organizationId } = validParams(c, Params);
        assertOwnOrganization(c.var.actor, organizationId);
        const body = await validBody(c, RestoreBody, { maxBytes: MAX_BACKUP_BYTES });
        return c.json(
          await restoreConfiguration({ ctx: c.var.ctx, deps: restoreDeps, input: { organizationId, backup: body.backup, credentials: body.credentials } }),
          201,
        );
      },
    );
}
