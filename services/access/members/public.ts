import type * as v from 'valibot';
import type { PublicMemberShape } from '../../../domain/public-shapes/access.ts';
import type { Role } from '../../../domain/scopes.ts';

export type PublicMember = v.InferOutput<typeof PublicMemberShape>;

export function toMemberResponse(row: {
  id: string;
  subject: string;
  scopes: string[];
  role: Role;
  organizationRole: Role | null;
  displayName: string | null;
  email: string | null;
}): PublicMember {
  return {
    id: row.id,
    subject: row.subject,
    scopes: row.scopes,
    role: row.role,
    organizationRole: row.organizationRole,
    ...(row.displayName ? { displayName: row.displayName } : {}),
    ...(row.email ? { email: row.email } : {}),
  };
}
