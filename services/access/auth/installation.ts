import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { installation, organizations, projects } from '../../../db/schema/index.ts';
import { DEVELOPMENT_ORGANIZATION_SLUG, DEVELOPMENT_PROJECT_SLUG } from '../../../domain/principals.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';

export type Installation = { organizationId: string; defaultProjectId: string | null; ownerClaimedBySubject: string | null };
export type ReadyInstallation = Installation & { defaultProjectId: string };

/**
 * The installation's organization and default project, created on first start (idempotent;
 * adopts an organization an earlier release created). Every sign-in mode works in this one
 * organization; API keys and restores can add more projects to it.
 */
export async function ensureInstallation(ctx: ServiceContext): Promise<ReadyInstallation> {
  return withTransaction(ctx, async (tx) => {
    const existing = await readInstallation(tx.db);
    if (existing?.defaultProjectId) return existing as ReadyInstallation;
    if (existing) {
      // The default project was deleted (allowed outside edge-proxy mode): the earliest one
      // takes its place.
      const [earliest] = await tx.db
        .select()
        .from(projects)
        .where(eq(projects.organizationId, existing.organizationId))
        .orderBy(asc(projects.createdAt), asc(projects.id))
        .limit(1);
      await tx.db.update(installation).set({ defaultProjectId: earliest!.id });
      return { ...existing, defaultProjectId: earliest!.id };
    }
    const createdAt = tx.clock.now();
    await tx.db.insert(organizations).values({ slug: DEVELOPMENT_ORGANIZATION_SLUG, name: 'Default organization', createdAt }).onConflictDoNothing();
    const [organization] = await tx.db.select().from(organizations).where(eq(organizations.slug, DEVELOPMENT_ORGANIZATION_SLUG));
    const organizationId = organization!.id;
    const [first] = await tx.db
      .select()
      .from(projects)
      .where(eq(projects.organizationId, organizationId))
      .orderBy(asc(projects.createdAt), asc(projects.id))
      .limit(1);
    const [named] = await tx.db
      .select()
      .from(projects)
      .where(and(eq(projects.organizationId, organizationId), eq(projects.slug, DEVELOPMENT_PROJECT_SLUG)));
    let defaultProject = named ?? first;
    if (!defaultProject) {
      [defaultProject] = await tx.db
        .insert(projects)
        .values({ organizationId, slug: DEVELOPMENT_PROJECT_SLUG, name: 'Default project', createdAt })
        .returning();
    }
    await tx.db.insert(installation).values({ organizationId, defaultProjectId: defaultProject!.id, createdAt }).onConflictDoNothing();
    return (await readInstallation(tx.db)) as ReadyInstallation;
  });
}

export async function readInstallation(db: Executor): Promise<Installation | null> {
  const [row] = await db
    .select({
      organizationId: installation.organizationId,
      defaultProjectId: installation.defaultProjectId,
      ownerClaimedBySubject: installation.ownerClaimedBySubject,
    })
    .from(installation);
  return row ?? null;
}

/** Locks the installation row: admissions and the owner claim run one at a time. */
export async function lockInstallation(tx: ServiceContext): Promise<Installation> {
  const [row] = await tx.db
    .select({
      organizationId: installation.organizationId,
      defaultProjectId: installation.defaultProjectId,
      ownerClaimedBySubject: installation.ownerClaimedBySubject,
    })
    .from(installation)
    .for('update');
  if (!row) throw new Error('The installation is not initialized');
  return row;
}

/** Takes the owner claim for `subject` if nobody ever took it; true when this call took it. */
export async function claimOwnership(tx: ServiceContext, subject: string): Promise<boolean> {
  const claimed = await tx.db
    .update(installation)
    .set({ ownerClaimedBySubject: subject, ownerClaimedAt: tx.clock.now() })
    .where(isNull(installation.ownerClaimedBySubject))
    .returning({ subject: installation.ownerClaimedBySubject });
  return claimed.length === 1;
}

/** Whether `projectId` is the installation's default project (edge-proxy rules). */
export async function isDefaultProject(db: Executor, projectId: string): Promise<boolean> {
  const current = await readInstallation(db);
  return current?.defaultProjectId === projectId;
}
