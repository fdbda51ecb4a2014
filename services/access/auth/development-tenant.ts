import { DEVELOPMENT_SUBJECT } from '../../../domain/principals.ts';
import { WILDCARD_SCOPE } from '../../../domain/scopes.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { ensureInstallation } from './installation.ts';
import { provisionMember } from './provision-member.ts';

/**
 * Development mode's fixed tenant: the installation's organization and default project, and the
 * development principal, owner with `*`. Idempotent; runs at every start of a development server.
 */
export async function ensureDevelopmentTenant({ ctx }: { ctx: ServiceContext }): Promise<{ organizationId: string; projectId: string }> {
  return withTransaction(ctx, async (tx) => {
    const { organizationId, defaultProjectId } = await ensureInstallation(tx);
    // The development principal belongs to the default project (the earliest one once the
    // default was deleted: ensureInstallation re-adopts one).
    const projectId = defaultProjectId;
    await provisionMember(tx, {
      organizationId,
      projectId,
      subject: DEVELOPMENT_SUBJECT,
      kind: 'human',
      organizationRole: 'owner',
      projectRole: 'owner',
      scopes: [WILDCARD_SCOPE],
      displayName: 'Developer',
    });
    return { organizationId, projectId };
  });
}
