import { randomUUID } from 'node:crypto';
import { organizationMemberships, organizations, principals, projectMemberships, projects } from '../../db/schema/index.ts';
import { createBrowserSession } from '../../services/access/auth/index.ts';
import { systemContext } from '../../services/kernel/service-context.ts';
import type { TestApp } from './app.ts';

/**
 * Another organization with its own owner, as a completed sign-in leaves its rows, and an API key
 * of its project with every scope: the stranger of the tenancy tests.
 */
export async function createForeignOrganization(t: Pick<TestApp, 'database' | 'deps' | 'request'>, label = 'Foreign') {
  const db = t.database.db;
  const [org] = await db
    .insert(organizations)
    .values({ slug: `foreign-${randomUUID().slice(0, 8)}`, name: `${label} Org` })
    .returning();
  const [project] = await db
    .insert(projects)
    .values({ organizationId: org!.id, slug: 'foreign', name: `${label} project` })
    .returning();
  const subject = `foreign-owner-${randomUUID().slice(0, 8)}`;
  await db.insert(organizationMemberships).values({ organizationId: org!.id, subject, role: 'owner' });
  const [principal] = await db
    .insert(principals)
    .values({ organizationId: org!.id, projectId: project!.id, kind: 'human', subject, scopes: ['*'] })
    .returning();
  await db.insert(projectMemberships).values({ organizationId: org!.id, projectId: project!.id, principalId: principal!.id, role: 'owner' });
  const ctx = systemContext({ db, logger: t.deps.logger, clock: t.deps.clock });
  const session = await createBrowserSession({ ctx, input: { organizationId: org!.id, subject, projectId: project!.id } });
  const cookie = `svc_session=${session.token}`;
  const key = await t.request('POST', `/v1/projects/${project!.id}/api-keys`, { cookie, body: { name: 'foreign key', scopes: ['*'] } });
  if (key.status !== 201) throw new Error(`foreign key creation failed: ${key.status}`);
  return { organizationId: org!.id, projectId: project!.id, cookie, sessionToken: session.token, apiKey: ((await key.json()) as { secret: string }).secret };
}
