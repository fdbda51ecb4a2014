import * as v from 'valibot';
import { and, eq } from 'drizzle-orm';
import { mcpCredentialPolicies, mcpCredentialPolicyVersions } from '../../../db/schema/index.ts';
import { ValidationError } from '../../../domain/errors.ts';
import { CreateMcpCredentialPolicyInput } from '../../../domain/mcp/inputs.ts';
import { exactOriginProblem } from '../../../domain/mcp/policy-scope.ts';
import { nonPublicHost } from '../../../domain/outbound/endpoint-url.ts';
import { recordAudit } from '../../kernel/audit/index.ts';
import { findMcpCredential } from '../mcp-credentials/index.ts';
import type { McpEndpointPolicy } from '../../../domain/mcp/types.ts';
import type { ServiceContext } from '../../kernel/service-context.ts';
import { requireActor } from '../../kernel/require-actor.ts';
import { withTransaction } from '../../kernel/transaction.ts';
import { toMcpCredentialPolicyVersionResponse, type McpCredentialPolicyVersionRow, type PublicMcpCredentialPolicyVersion } from './public.ts';

const RULE_FIELDS = ['displayName', 'credentialId', 'exactOrigin', 'pathPrefix', 'timeoutMs', 'maximumResponseBytes'] as const;

/**
 * Publishes a credential policy version: version 1 of a new key, or the next version of an
 * existing one. Content equal to the newest version publishes nothing and answers that version
 * (`created: false`). The credential must be an active credential of the organization, and
 * `exactOrigin` an https origin (http only where development allows private networks).
 */
export async function createMcpCredentialPolicy({
  ctx,
  policy: endpointPolicy,
  input,
}: {
  ctx: ServiceContext;
  policy: McpEndpointPolicy;
  input: CreateMcpCredentialPolicyInput;
}): Promise<{ version: PublicMcpCredentialPolicyVersion; created: boolean }> {
  const actor = requireActor(ctx);
  const parsed = v.parse(CreateMcpCredentialPolicyInput, input);
  const originProblem = exactOriginProblem(parsed.exactOrigin, { allowPlainHttp: endpointPolicy.allowPrivateNetwork });
  if (originProblem) throw new ValidationError(originProblem, { path: 'body.exactOrigin' });
  // Like an MCP server's endpoint: no literal non-public address or `localhost` name unless allowed.
  const hostProblem = nonPublicHost(new URL(parsed.exactOrigin).hostname, endpointPolicy);
  if (hostProblem) throw new ValidationError(`exactOrigin must name a public host, not ${hostProblem}`, { path: 'body.exactOrigin' });
  return withTransaction(ctx, async (tx) => {
    const credential = await findMcpCredential(tx, parsed.credentialId, { forUpdate: true }).catch(() => null);
    if (!credential) throw new ValidationError('credentialId names no MCP credential of this organization', { path: 'body.credentialId' });
    if (credential.revokedAt) throw new ValidationError('credentialId names a revoked MCP credential', { path: 'body.credentialId' });
    const now = tx.clock.now();
    // The key's row, created on first use; its lock orders concurrent publications.
    await tx.db
      .insert(mcpCredentialPolicies)
      .values({ organizationId: actor.organizationId, key: parsed.key, latestVersion: 0, createdAt: now })
      .onConflictDoNothing();
    const [policy] = await tx.db
      .select()
      .from(mcpCredentialPolicies)
      .where(and(eq(mcpCredentialPolicies.organizationId, actor.organizationId), eq(mcpCredentialPolicies.key, parsed.key)))
      .for('update');
    if (policy!.latestVersion > 0) {
      const [latest] = await tx.db
        .select()
        .from(mcpCredentialPolicyVersions)
        .where(and(eq(mcpCredentialPolicyVersions.policyId, policy!.id), eq(mcpCredentialPolicyVersions.version, policy!.latestVersion)));
      if (sameRules(latest!, parsed)) return { version: toMcpCredentialPolicyVersionResponse(policy!, latest!, credential), created: false };
    }
    const next = policy!.latestVersion + 1;
    const [version] = await tx.db
      .insert(mcpCredentialPolicyVersions)
      .values({
        organizationId: actor.organizationId,
        policyId: policy!.id,
        version: next,
        ...pickRules(parsed),
        createdByPrincipalId: actor.principalId,
        createdAt: now,
      })
      .returning();
    const [updated] = await tx.db.update(mcpCredentialPolicies).set({ latestVersion: next }).where(eq(mcpCredentialPolicies.id, policy!.id)).returning();
    await recordAudit(tx, {
      action: 'mcp_credential_policy.published',
      targetType: 'mcp_credential_policy',
      targetId: policy!.id,
      details: {
        key: parsed.key,
        version: next,
        versionId: version!.id,
        credentialId: parsed.credentialId,
        exactOrigin: parsed.exactOrigin,
        pathPrefix: parsed.pathPrefix,
      },
    });
    return { version: toMcpCredentialPolicyVersionResponse(updated!, version!, credential), created: true };
  });
}

const pickRules = (input: CreateMcpCredentialPolicyInput) =>
  Object.fromEntries(RULE_FIELDS.map((field) => [field, input[field]])) as Pick<CreateMcpCredentialPolicyInput, (typeof RULE_FIELDS)[number]>;

const sameRules = (row: McpCredentialPolicyVersionRow, input: CreateMcpCredentialPolicyInput) => RULE_FIELDS.every((field) => row[field] === input[field]);
