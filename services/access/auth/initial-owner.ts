import { WILDCARD_SCOPE } from '../../../domain/scopes.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { claimOwnership, ensureInstallation, lockInstallation } from './installation.ts';
import { provisionMember } from './provision-member.ts';

/**
 * Hosted mode's first owner: a provider identity alone grants nothing (spec 3 "Modes"), so a
 * fresh installation makes the configured subject owner of the organization and its default
 * project. The claim is taken once; later starts (and a changed setting) leave it alone.
 */
export async function ensureInitialOwner(ctx: ServiceContext, subject: string): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await ensureInstallation(tx);
    const { organizationId, defaultProjectId } = await lockInstallation(tx);
    if (!(await claimOwnership(tx, subject))) return;
    await provisionMember(tx, {
      organizationId,
      projectId: defaultProjectId!,
      subject,
      kind: 'human',
      organizationRole: 'owner',
      projectRole: 'owner',
      scopes: [WILDCARD_SCOPE],
    });
  });
}
