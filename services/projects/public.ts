import type { organizations, projects } from '../../db/schema/index.ts';

type ProjectRow = typeof projects.$inferSelect;
type OrganizationRow = typeof organizations.$inferSelect;

export type PublicProject = { id: string; organizationId: string; slug: string; name: string; createdAt: string };
export type PublicOrganization = { id: string; slug: string; name: string; createdAt: string };

export const toProjectResponse = (row: ProjectRow): PublicProject => ({
  id: row.id,
  organizationId: row.organizationId,
  slug: row.slug,
  name: row.name,
  createdAt: row.createdAt.toISOString(),
});

export const toOrganizationResponse = (row: OrganizationRow): PublicOrganization => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  createdAt: row.createdAt.toISOString(),
});
