import * as v from 'valibot';
import { ProjectBudgetShape } from './usage.ts';
import { PRINCIPAL_KINDS } from '../principals.ts';
import { ROLES } from '../scopes.ts';
import { Id, page, Timestamp } from './common.ts';

/** Organizations, projects, members, API keys and `GET /context` (spec 1 and spec 2 "Organizations, projects, members"). */
export const PublicOrganizationShape = v.strictObject({ id: Id, slug: v.string(), name: v.string(), createdAt: Timestamp });
/**
 * A project's retention windows (docs/decisions/project-retention-overrides.md): durations such as `30d`; in
 * `retention` the project's own override (null: the installation default applies), in
 * `effectiveRetention` what applies now (null: kept for good).
 */
const RetentionWindowsShape = v.strictObject({ sessions: v.nullable(v.string()), events: v.nullable(v.string()) });
/**
 * Whether the project's agents answer over the standard agent protocols
 * (docs/decisions/agent-protocol-switches.md): `a2a` at `/a2a/{projectId}/agents/{agentId}`,
 * `mcp` at `/mcp/{projectId}`; each only while the installation serves that protocol too.
 */
const AgentProtocolsShape = v.strictObject({ a2a: v.boolean(), mcp: v.boolean() });
export const PublicProjectShape = v.strictObject({
  id: Id,
  organizationId: Id,
  slug: v.string(),
  name: v.string(),
  createdAt: Timestamp,
  retention: RetentionWindowsShape,
  budget: v.nullable(ProjectBudgetShape),
  agentProtocols: AgentProtocolsShape,
});
export const ProjectWithOrganizationShape = v.strictObject({
  ...PublicProjectShape.entries,
  organization: PublicOrganizationShape,
  effectiveRetention: RetentionWindowsShape,
});
export const OrganizationPageShape = page(PublicOrganizationShape);
export const ProjectPageShape = page(PublicProjectShape);
export const ProjectDeletedShape = v.strictObject({ id: Id, deleted: v.literal(true) });

const Role = v.picklist(ROLES);

/** `displayName` and `email` appear only when known. */
export const PublicMemberShape = v.strictObject({
  id: Id,
  subject: v.string(),
  scopes: v.array(v.string()),
  role: Role,
  organizationRole: v.nullable(Role),
  displayName: v.optional(v.string()),
  email: v.optional(v.string()),
});
export const MemberListShape = v.strictObject({ data: v.array(PublicMemberShape) });
export const MemberRemovedShape = v.strictObject({ id: Id, removed: v.literal(true) });

/** API key metadata; the secret is never stored or shown after creation. */
export const PublicApiKeyShape = v.strictObject({
  id: Id,
  organizationId: Id,
  name: v.string(),
  scopes: v.array(v.string()),
  secretHint: v.string(),
  createdByPrincipalId: v.nullable(Id),
  createdAt: Timestamp,
  lastUsedAt: v.nullable(Timestamp),
  revokedAt: v.nullable(Timestamp),
});
/** The creation answer: the one time the secret shows. */
export const CreatedApiKeyShape = v.strictObject({ ...PublicApiKeyShape.entries, shown: v.literal(true), secret: v.string() });
export const ApiKeyPageShape = page(PublicApiKeyShape);
export const ApiKeyRevokedShape = v.strictObject({ id: Id, revoked: v.literal(true) });

/** The principal as the API shows it (spec 1 "Principal (public)"). */
export const PublicPrincipalShape = v.strictObject({
  id: Id,
  organizationId: Id,
  projectId: Id,
  kind: v.picklist(PRINCIPAL_KINDS),
  subject: v.string(),
  scopes: v.array(v.string()),
  displayName: v.optional(v.string()),
  organizationRole: v.nullable(Role),
  projectRole: v.nullable(Role),
});

/** The context object of spec 1: who is acting, where, and what is around. */
export const ContextShape = v.strictObject({
  principal: PublicPrincipalShape,
  organization: PublicOrganizationShape,
  project: PublicProjectShape,
  organizations: v.array(PublicOrganizationShape),
  projects: v.array(PublicProjectShape),
  activeModelPresets: v.array(v.string()),
  authProvider: v.string(),
  /** The installation's currency (`SVC_CURRENCY`): every price, cost and budget is in it. */
  currency: v.string(),
  /** Edge-proxy mode only: whether the active project is the installation's default project. */
  isIapDefaultProject: v.optional(v.boolean()),
});

/** Browser sign-in (spec 3 "Browser sessions"): which provider this server uses and where to start. */
export const AuthProviderShape = v.strictObject({
  mode: v.picklist(['development', 'hosted', 'edge_proxy']),
  loginPath: v.nullable(v.string()),
  logoutSupported: v.boolean(),
});
export const DevelopmentLoginShape = v.strictObject({ authenticated: v.literal(true), context: ContextShape });
/** Hosted sign-in: the identity provider's address to send the browser to. */
export const SignInRedirectShape = v.strictObject({ redirectUrl: v.string() });
/** Logout: empty, or the provider's address to end its session too. */
export const LogoutShape = v.strictObject({ redirectUrl: v.optional(v.string()) });
export const SessionRefreshedShape = v.strictObject({ refreshed: v.literal(true), expiresInSeconds: v.pipe(v.number(), v.integer(), v.minValue(1)) });
