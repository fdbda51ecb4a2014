import { and, eq } from 'drizzle-orm';
import { organizationMemberships, organizations, principals, projectMemberships, projects } from '../../db/schema/index.ts';
import {
  DEVELOPMENT_ORGANIZATION_SLUG,
  DEVELOPMENT_PROJECT_SLUG,
  DEVELOPMENT_SUBJECT,
} from '../../domain/principals.ts';
import { WILDCARD_SCOPE } from '../../domain/scopes.ts';
import type { ServiceContext } from '../service-context.ts';
import { withTransaction } from '../transaction.ts';

/**
 * Development mode's fixed tenant: the default organization and project, and the development
 * principal, owner with `*`. Idempotent; runs at every start of a development server.
 */
export async function ensureDevelopmentTenant(ctx: ServiceContext): Promise<{ organizationId: string; projectId: string }> {
  return withTransaction(ctx, async (tx) => {
    const createdAt = tx.clock.now();
    await tx.db.insert(organizations).values({ slug: DEVELOPMENT_ORGANIZATION_SLUG, name: 'Default organization', createdAt }).onConflictDoNothing();
    const [organization] = await tx.db.select().from(organizations).where(eq(organizations.slug, DEVELOPMENT_ORGANIZATION_SLUG));
    const organizationId = organization!.id;
    await tx.db
      .insert(organizationMemberships)
      .values({ organizationId, subject: DEVELOPMENT_SUBJECT, role: 'owner' })
      .onConflictDoNothing();

    const existingProjects = await tx.db.select().from(projects).where(eq(projects.organizationId, organizationId)).limit(1);
    if (existingProjects.length === 0) {
      await tx.db.insert(projects).values({ organizationId, slug: DEVELOPMENT_PROJECT_SLUG, name: 'Default project', createdAt });
    }
    // The development principal belongs to the default project, or to the earliest project
    // if the default one was deleted.
    const [home] = await tx.db
      .select()
      .from(projects)
      .where(and(eq(projects.organizationId, organizationId), eq(projects.slug, DEVELOPMENT_PROJECT_SLUG)));
    const [earliest] = await tx.db.select().from(projects).where(eq(projects.organizationId, organizationId)).orderBy(projects.createdAt).limit(1);
    const project = (home ?? earliest)!;

    await tx.db
      .insert(principals)
      .values({ organizationId, projectId: project.id, kind: 'human', subject: DEVELOPMENT_SUBJECT, scopes: [WILDCARD_SCOPE], displayName: 'Developer' })
      .onConflictDoNothing();
    const [principal] = await tx.db
      .select()
      .from(principals)
      .where(and(eq(principals.projectId, project.id), eq(principals.kind, 'human'), eq(principals.subject, DEVELOPMENT_SUBJECT)));
    await tx.db
      .insert(projectMemberships)
      .values({ organizationId, projectId: project.id, principalId: principal!.id, role: 'owner' })
      .onConflictDoNothing();
    return { organizationId, projectId: project.id };
  });
}
