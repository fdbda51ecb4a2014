import { asc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegationCalls, productEvents, runs, toolCalls } from '../../db/schema/index.ts';
import { startRunApp } from '../support/run-app.ts';
import { createTestAgent } from '../support/test-agents.ts';

/**
 * The project's running-runs limit holds through fan-outs (docs/decisions/running-runs-limit.md):
 * a coordinator waiting for its children holds no place, its children are admitted like any
 * run, and the last child to settle hands its place back to the coordinator. With a limit of 2,
 * two coordinators fanning out three children each never have more than two runs holding places;
 * before, every child was admitted past the limit (eight at once), and holding the coordinators'
 * places while their children waited would deadlock both.
 */
const LIMIT = 2;
let f: Awaited<ReturnType<typeof startRunApp>>;

beforeAll(async () => {
  f = await startRunApp({ env: { SVC_PROJECT_RUNNING_RUNS_LIMIT: String(LIMIT), SVC_PROJECT_UNSETTLED_RUNS_LIMIT: '0' } });
  // A coordinator's first turn fans out three calls, its next answers; a child answers after a while.
  f.fakes.vendor_a.defaultReply = (request) => {
    const body = JSON.stringify(request.body);
    if (!body.includes('You are coordinator')) return { text: 'Found it.', delayMs: 300 };
    if (body.includes('Found it.')) return { text: 'All three found it.' };
    return { toolCalls: [1, 2, 3].map((part) => ({ name: 'delegate_agent', arguments: { delegateKey: 'researcher', message: `Part ${part}.` } })) };
  };
}, 120_000);
afterAll(() => f?.close());

const agent = (name: string, config: Record<string, unknown> = {}) => createTestAgent(f, name, config);

/** The child runs of each coordinator run, by coordinator. */
async function childrenOf(coordinatorRunIds: string[]) {
  const rows = await f.t.database.db
    .select({ coordinatorRunId: toolCalls.runId, childRunId: delegationCalls.childRunId })
    .from(delegationCalls)
    .innerJoin(toolCalls, eq(toolCalls.id, delegationCalls.toolCallId))
    .where(inArray(toolCalls.runId, coordinatorRunIds));
  return rows;
}

/**
 * The most runs that held a place at once, replayed from the product events in commit order: a
 * run holds one from `run.running` until it settles, except a coordinator while one of its
 * children is queued or running.
 */
async function mostPlacesHeld(coordinatorRunIds: string[], otherRunIds: string[] = []) {
  const children = await childrenOf(coordinatorRunIds);
  const parentOf = new Map(children.map((row) => [row.childRunId, row.coordinatorRunId]));
  const ids = [...coordinatorRunIds, ...otherRunIds, ...children.map((row) => row.childRunId)];
  const events = await f.t.database.db
    .select({ kind: productEvents.kind, runId: productEvents.aggregateId })
    .from(productEvents)
    .where(inArray(productEvents.aggregateId, ids))
    .orderBy(asc(productEvents.projectPosition));
  const running = new Set<string>();
  const unsettledChildren = new Map<string, number>();
  let most = 0;
  for (const { kind, runId } of events) {
    const parent = parentOf.get(runId);
    if (kind === 'run.queued' && parent) unsettledChildren.set(parent, (unsettledChildren.get(parent) ?? 0) + 1);
    if (kind === 'run.running') running.add(runId);
    if (['run.completed', 'run.failed', 'run.cancelled', 'run.timed_out'].includes(kind)) {
      running.delete(runId);
      if (parent) unsettledChildren.set(parent, unsettledChildren.get(parent)! - 1);
    }
    const held = [...running].filter((id) => !(unsettledChildren.get(id) ?? 0)).length;
    most = Math.max(most, held);
  }
  return { most, children };
}

describe('the running-runs limit and delegation', () => {
  it('two coordinators’ fan-outs share a limit of two places and both complete', async () => {
    const researcher = await agent('researcher');
    const lead = await agent('coordinator', {
      delegates: [{ key: 'researcher', agentVersionId: researcher.versionId, maxParallel: 3, description: 'The researcher.' }],
    });
    const started = await Promise.all(
      [1, 2].map(async () => {
        const session = await f.call('POST', '/sessions', { agentId: lead.id, initialMessage: 'Fan out.' });
        expect(session.status, JSON.stringify(session.body)).toBe(201);
        return session.body.latestRunId as string;
      }),
    );
    for (const runId of started) expect((await f.waitForRun(runId, undefined, 120_000)).state).toBe('completed');
    const { most, children } = await mostPlacesHeld(started);
    expect(children).toHaveLength(6);
    const states = await f.t.database.db
      .select({ state: runs.state })
      .from(runs)
      .where(
        inArray(
          runs.id,
          children.map((row) => row.childRunId),
        ),
      );
    expect(states.map((row) => row.state)).toEqual(Array(6).fill('completed'));
    expect(most).toBe(LIMIT);
    // Each coordinator's last turn has its three answers.
    const finals = f.fakes.vendor_a.requests.filter((request) => JSON.stringify(request.body).includes('You are coordinator')).slice(-2);
    for (const request of finals) expect(JSON.stringify(request.body).split('Found it.').length - 1).toBe(3);
  }, 180_000);

  it('the last child hands its place back to its coordinator, ahead of a run that came later', async () => {
    const researcher = await agent('researcher');
    const lead = await agent('coordinator', {
      delegates: [{ key: 'researcher', agentVersionId: researcher.versionId, maxParallel: 3, description: 'The researcher.' }],
    });
    const loner = await agent('loner');
    const leads = await Promise.all(
      [1, 2].map(async () => (await f.call('POST', '/sessions', { agentId: lead.id, initialMessage: 'Fan out.' })).body.latestRunId as string),
    );
    // Once both fan-outs are queued, a run of another agent asks for a place too.
    for (let i = 0; (await childrenOf(leads)).length < 6; i++) {
      if (i > 600) throw new Error('the fan-outs never queued');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const later = (await f.call('POST', '/sessions', { agentId: loner.id, initialMessage: 'Me too.' })).body.latestRunId as string;
    for (const runId of [...leads, later]) expect((await f.waitForRun(runId, undefined, 120_000)).state).toBe('completed');
    expect((await mostPlacesHeld(leads, [later])).most).toBeLessThanOrEqual(LIMIT);
  }, 180_000);
});
