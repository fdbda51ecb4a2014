import type * as v from 'valibot';
import type { PublicOrganizationShape, PublicProjectShape } from '../../domain/public-shapes/access.ts';
import type { organizations, projects } from '../../db/schema/index.ts';

type ProjectRow = typeof projects.$inferSelect;
type OrganizationRow = typeof organizations.$inferSelect;

export type PublicProject = v.InferOutput<typeof PublicProjectShape>;
export type PublicOrganization = v.InferOutput<typeof PublicOrganizationShape>;

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
