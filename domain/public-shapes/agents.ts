import * as v from 'valibot';
import { Id, page, Timestamp } from './common.ts';

/** An agent version (spec 1): its config exactly as published, content-hashed. */
export const PublicAgentVersionShape = v.strictObject({
  organizationId: Id,
  projectId: Id,
  id: Id,
  agentDefinitionId: Id,
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  config: v.record(v.string(), v.unknown()),
  contentHash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  createdByPrincipalId: v.nullable(Id),
  createdAt: Timestamp,
});

/** The agent object of spec 1; `model` and `sandbox` come from the latest version. */
export const PublicAgentShape = v.strictObject({
  organizationId: Id,
  projectId: Id,
  id: Id,
  key: v.string(),
  name: v.string(),
  description: v.string(),
  latestVersionId: Id,
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  model: v.string(),
  status: v.literal('published'),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  sandbox: v.unknown(),
});

export const AgentWithVersionsShape = v.strictObject({ ...PublicAgentShape.entries, versions: v.array(PublicAgentVersionShape) });
export const AgentPageShape = page(PublicAgentShape);
export const AgentVersionListShape = v.strictObject({ data: v.array(PublicAgentVersionShape) });
export const AgentDeletedShape = v.strictObject({ id: Id, deleted: v.literal(true) });
