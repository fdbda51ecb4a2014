import * as v from 'valibot';
import { ProjectRetentionChanges, ProjectRetentionInput } from './retention.ts';
import { ProjectBudgetInput } from './usage/budget.ts';

/** Project slug rule of spec 1: 1-80 chars, `^[a-z0-9][a-z0-9-]*$`. */
export const ProjectSlug = v.pipe(
  v.string('slug must be a string'),
  v.minLength(1, 'slug must not be empty'),
  v.maxLength(80, 'slug must be at most 80 characters'),
  v.regex(/^[a-z0-9][a-z0-9-]*$/, 'slug must match ^[a-z0-9][a-z0-9-]*$'),
);

export const ProjectName = v.pipe(
  v.string('name must be a string'),
  v.trim(),
  v.minLength(1, 'name must not be empty'),
  v.maxLength(200, 'name must be at most 200 characters'),
);

export const CreateProjectInput = v.strictObject({ slug: ProjectSlug, name: ProjectName });
export type CreateProjectInput = v.InferOutput<typeof CreateProjectInput>;

/**
 * A project's switches for the standard agent protocols (docs/decisions/agent-protocol-switches.md):
 * either or both; an omitted one stays.
 */
export const AgentProtocolsInput = v.pipe(
  v.strictObject({
    a2a: v.optional(v.boolean('agentProtocols.a2a must be true or false')),
    mcp: v.optional(v.boolean('agentProtocols.mcp must be true or false')),
  }),
  v.check((input) => input.a2a !== undefined || input.mcp !== undefined, 'agentProtocols needs a2a, mcp or both'),
);
export type AgentProtocolsInput = v.InferOutput<typeof AgentProtocolsInput>;

const givesSomething = (input: { retention?: unknown; budget?: unknown; agentProtocols?: unknown }) =>
  input.retention !== undefined || input.budget !== undefined || input.agentProtocols !== undefined;

/**
 * `PATCH /projects/{id}`: the project's retention overrides (docs/decisions/project-retention-overrides.md),
 * its monthly budget (docs/decisions/budgets.md; replaced whole, `null` removes it) and its agent
 * protocol switches (docs/decisions/agent-protocol-switches.md).
 */
export const UpdateProjectInput = v.pipe(
  v.strictObject({
    retention: v.optional(ProjectRetentionInput),
    budget: v.optional(ProjectBudgetInput),
    agentProtocols: v.optional(AgentProtocolsInput),
  }),
  v.check((input) => givesSomething(input), 'give retention, budget, agentProtocols or several'),
);
export type UpdateProjectInput = v.InferOutput<typeof UpdateProjectInput>;

/** The same, validated (windows in minutes), as `updateProject` re-checks it. */
export const UpdateProjectChanges = v.strictObject({
  retention: v.optional(ProjectRetentionChanges),
  budget: v.optional(ProjectBudgetInput),
  agentProtocols: v.optional(AgentProtocolsInput),
});
export type UpdateProjectChanges = v.InferOutput<typeof UpdateProjectChanges>;
