import * as v from 'valibot';
import { RUN_STATES } from '../runs/states.ts';
import { Id, page, Timestamp } from './common.ts';
import { PublicRunShape } from './runs.ts';

/** The session object of spec 1, plus `agentId` and `title`. */
export const PublicSessionShape = v.strictObject({
  organizationId: Id,
  projectId: Id,
  id: Id,
  threadId: Id,
  agentId: Id,
  agentVersionId: Id,
  title: v.nullable(v.string()),
  status: v.picklist(RUN_STATES),
  createdAt: Timestamp,
  lastActivityAt: Timestamp,
  latestRunId: v.nullable(Id),
});

const TokenCount = v.pipe(v.number(), v.integer(), v.minValue(0));

/** List items add the delegation fields and the cumulative token counters. */
export const PublicSessionListItemShape = v.strictObject({
  ...PublicSessionShape.entries,
  parentSessionId: v.nullable(Id),
  delegateKey: v.nullable(v.string()),
  inputTokens: TokenCount,
  outputTokens: TokenCount,
  cacheReadTokens: TokenCount,
  cacheWriteTokens: TokenCount,
});

/** `POST /sessions`: the session with its first run. */
export const CreatedSessionShape = v.strictObject({ ...PublicSessionShape.entries, run: PublicRunShape });
export const SessionPageShape = page(PublicSessionListItemShape);
