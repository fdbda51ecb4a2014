import type * as v from 'valibot';
import type { RestorePreviewShape } from '../../../domain/public-shapes/configuration-backup.ts';
import { readBackupFile } from '../../../domain/configuration-backup/check.ts';
import { assertOrganizationAdministrator } from '../../access/projects/index.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { assertOwnOrganization } from './authorize.ts';
import { planRestore, type PlanDeps } from './plan.ts';

export type RestorePreview = v.InferOutput<typeof RestorePreviewShape>;

/** `POST .../configuration-restore/preview`: what a restore would do; changes nothing (rule 5). */
export async function previewRestore({
  ctx,
  deps,
  input,
}: {
  ctx: ServiceContext;
  deps: PlanDeps;
  input: { organizationId: string; backup: unknown };
}): Promise<RestorePreview> {
  const actor = requireActor(ctx);
  assertOrganizationAdministrator(actor);
  assertOwnOrganization(actor, input.organizationId);
  const file = readBackupFile(input.backup);
  const plan = await planRestore(ctx.db, actor.organizationId, file, deps, { lock: false });
  return {
    ...plan,
    projects: plan.projects.map((project) => ({
      slug: project.slug,
      name: project.name,
      action: project.action,
      ...(project.reason ? { reason: project.reason } : {}),
    })),
  };
}
